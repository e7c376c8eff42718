import assert from "node:assert/strict";
import { ConfigError } from "@switchyard/lib/config.ts";
import { readGatewayConfig } from "./mod.ts";

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

Deno.test("a preset entry needs only its name and the key in the host's usual variable", () => {
  const yaml =
    "providers:\n  groq: {}\n  fast: { preset: groq, api_key_env: FAST_KEY, quirks: { stream_options: false } }\n";
  const config = readGatewayConfig(
    { GATEWAY_CONFIG: "g.yaml", GROQ_API_KEY: "gsk-1", FAST_KEY: "gsk-2" },
    () => yaml,
  );
  const [groq, fast] = config.providers;
  assert.equal(groq.name, "groq");
  assert.equal(groq.kind, "openai-compatible");
  assert.equal(groq.baseUrl, "https://api.groq.com/openai/v1");
  assert.equal(groq.apiKey, "gsk-1");
  assert.equal(groq.authHeader, "authorization");
  assert.equal(groq.quirks.maxTokensField, "max_completion_tokens");
  assert.equal(groq.quirks.streamOptions, true);
  assert.equal(fast.apiKey, "gsk-2", "the key variable is overridable");
  assert.equal(fast.quirks.streamOptions, false, "so is every quirk");
  assert.equal(fast.quirks.reasoningField, "reasoning", "the rest still comes from the preset");
  const missing = readGatewayConfig({ GATEWAY_CONFIG: "g.yaml" }, () => "providers:\n  groq: {}\n");
  assert.equal(missing.providers.length, 0, "no key: not offered");
});

Deno.test("an openai-responses entry defaults to OpenAI's URL and key and takes a base_url", () => {
  const yaml = "providers:\n  responses: { type: openai-responses }\n  private: { type: openai-responses, " +
    'base_url: "http://10.0.0.5:8080/v1/", api_key_env: PRIVATE_KEY }\n';
  const config = readGatewayConfig(
    { GATEWAY_CONFIG: "g.yaml", OPENAI_API_KEY: "sk-1", PRIVATE_KEY: "sk-2" },
    () => yaml,
  );
  const [, responses, priv] = config.providers;
  assert.deepEqual([responses.kind, responses.baseUrl, responses.apiKey], [
    "openai-responses",
    "https://api.openai.com/v1",
    "sk-1",
  ]);
  assert.deepEqual([priv.baseUrl, priv.apiKey], ["http://10.0.0.5:8080/v1", "sk-2"]);
});

Deno.test("provider misconfigurations stop start-up naming each key", () => {
  const yaml = `providers:
  nameless: { api_key_env: K }
  bare: { type: openai-compatible, api_key_env: K }
  wrong: { preset: grok }
  mixed: { type: openai-responses, preset: groq }
  tuned: { type: openai-responses, quirks: { stream_options: false } }
`;
  const error = (() => {
    try {
      readGatewayConfig({ GATEWAY_CONFIG: "g.yaml", K: "k" }, () => yaml);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof ConfigError);
  const keys = error.problems.map((p) => p.key);
  assert.ok(keys.includes("GATEWAY_CONFIG: providers.wrong.preset"), keys.join());
  assert.match(error.problems.find((p) => p.key.endsWith("wrong.preset"))!.message, /groq, deepseek/);
  const second = (() => {
    try {
      readGatewayConfig({ GATEWAY_CONFIG: "g.yaml", K: "k" }, () => yaml.replace(/ {2}wrong:.*\n/, ""));
    } catch (e) {
      return e as ConfigError;
    }
  })()!;
  assert.deepEqual(second.problems.map((p) => p.key), [
    "GATEWAY_CONFIG: providers.nameless.type",
    "GATEWAY_CONFIG: providers.bare.base_url",
    "GATEWAY_CONFIG: providers.mixed.preset",
    "GATEWAY_CONFIG: providers.tuned.quirks",
  ]);
});
