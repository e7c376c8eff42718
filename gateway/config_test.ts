import assert from "node:assert/strict";
import { ConfigError } from "@switchyard/lib/config.ts";
import { readGatewayConfig } from "./config.ts";

const files = (map: Record<string, string>) => (path: string) => {
  if (!(path in map)) throw new Deno.errors.NotFound(`no ${path}`);
  return map[path];
};

Deno.test("providers without credentials are not offered", () => {
  const config = readGatewayConfig({ OPENAI_API_KEY: "sk-1" }, files({}));
  assert.deepEqual(config.providers.map((p) => p.name), ["openai"]);
  assert.equal(config.providers[0].baseUrl, "https://api.openai.com/v1");
  assert.equal(readGatewayConfig({}, files({})).providers.length, 0);
});

Deno.test("the config file declares openai-compatible providers with quirks and aliases", () => {
  const yaml = `
providers:
  groq: { type: openai-compatible, base_url: "https://api.groq.com/openai/v1/", api_key_env: GROQ_API_KEY }
  ollama: { type: openai-compatible, base_url: "http://localhost:11434/v1", quirks: { stream_options: false } }
  mistral: { type: openai-compatible, base_url: "https://api.mistral.ai/v1", api_key_env: MISTRAL_API_KEY }
aliases: { fast: groq/llama-3.3-70b }
`;
  const config = readGatewayConfig(
    { GATEWAY_CONFIG: "gw.yaml", GROQ_API_KEY: "gsk" },
    files({ "gw.yaml": yaml }),
  );
  assert.deepEqual(config.providers.map((p) => p.name), ["groq", "ollama"]);
  assert.equal(config.providers[0].baseUrl, "https://api.groq.com/openai/v1");
  assert.equal(config.providers[1].quirks.streamOptions, false);
  assert.equal(config.file.aliases?.fast, "groq/llama-3.3-70b");
});

Deno.test("a bad config file is reported with every offending key", () => {
  const json = JSON.stringify({
    providers: { openai: { type: "openai-compatible", base_url: "https://x" }, Bad: { type: "other" } },
    aliases: { fast: "no-slash" },
    extra: true,
  });
  const error = (() => {
    try {
      readGatewayConfig(
        { GATEWAY_CONFIG: "gw.json", GATEWAY_PING_INTERVAL_MS: "soon" },
        files({ "gw.json": json }),
      );
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof ConfigError);
  const keys = error.problems.map((p) => p.key);
  assert.ok(keys.includes("GATEWAY_PING_INTERVAL_MS"));
  assert.ok(keys.some((k) => k.startsWith("GATEWAY_CONFIG: aliases.fast")), keys.join());
  assert.ok(keys.some((k) => k.startsWith("GATEWAY_CONFIG: providers")), keys.join());
  assert.ok(keys.some((k) => k.startsWith("GATEWAY_CONFIG: (root)") || k.includes("extra")), keys.join());
});

Deno.test("an unreadable config file is a configuration error naming GATEWAY_CONFIG", () => {
  assert.throws(
    () => readGatewayConfig({ GATEWAY_CONFIG: "missing.yaml" }, files({})),
    (e) => e instanceof ConfigError && e.problems[0].key === "GATEWAY_CONFIG",
  );
});

Deno.test("fallback targets must name offered providers", () => {
  const file = "fallbacks:\n  openai/gpt-4.1: [anthropic/claude-x, nowhere/model]\n";
  assert.throws(
    () =>
      readGatewayConfig(
        { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GATEWAY_CONFIG: "g.yaml" },
        () => file,
      ),
    /fallbacks\.openai\/gpt-4\.1\.1.*nowhere/s,
  );
});
