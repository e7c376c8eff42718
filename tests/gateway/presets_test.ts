/**
 * Every preset against its host's documented behaviour (upstreams/compat_hosts_mock.ts): a config entry
 * naming only the host (its base URL pointed at the loopback stand-in) and a key in the host's usual
 * environment variable answers streamed and whole requests with reasoning, text and the host's usage; what a
 * host cannot do is refused with a 400 naming the provider before any upstream call.
 */
import assert from "node:assert/strict";
import Anthropic0 from "@anthropic-ai/sdk-0";
import { checkGrammar } from "./grammar.ts";
import { startFaultyGateway } from "./faulty.ts";
import { answerOf, HOST_RULES, REASONING, startCompatHostsMock } from "./upstreams/compat_hosts_mock.ts";
import { PROVIDER_PRESETS } from "../../gateway/providers/presets.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const tool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
};
/** A request using every optional parameter a host may refuse (stop only where the host takes it). */
const full = (model: string) => ({
  model,
  max_tokens: 256,
  temperature: 0.3,
  metadata: { user_id: "user-7" },
  thinking: { type: "enabled" as const, budget_tokens: 2_048 },
  tools: [tool],
  tool_choice: { type: "auto" as const, disable_parallel_tool_use: true },
  ...(HOST_RULES[model.split("/")[0]].refuses.includes("stop") ? {} : { stop_sequences: ["END"] }),
  messages: [
    { role: "user" as const, content: "Weather?" },
    {
      role: "assistant" as const,
      content: [{
        type: "tool_use" as const,
        id: "toolu_01abc",
        name: "get_weather",
        input: { city: "Oslo" },
      }],
    },
    {
      role: "user" as const,
      content: [{ type: "tool_result" as const, tool_use_id: "toolu_01abc", content: "Sunny" }],
    },
  ],
});

Deno.test("each preset works with only its name and a key, against its host's own rules", e2e, async (t) => {
  const mock = await startCompatHostsMock();
  const hosts = Object.keys(PROVIDER_PRESETS);
  assert.deepEqual(hosts.sort(), Object.keys(HOST_RULES).sort(), "every preset has a host stand-in");
  const env: Record<string, string> = {};
  for (const host of hosts) {
    const keyEnv = (PROVIDER_PRESETS as Record<string, { apiKeyEnv?: string }>)[host].apiKeyEnv;
    if (keyEnv) env[keyEnv] = HOST_RULES[host].key!;
  }
  const yaml = "providers:\n" + hosts.map((h) => `  ${h}: { base_url: "${mock.url}/${h}/v1" }\n`).join("");
  const gw = await startFaultyGateway(env, yaml);
  const client = new Anthropic0({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 });
  try {
    for (const host of hosts) {
      await t.step(
        `${host}: streamed and whole answers carry reasoning, text and the host's usage`,
        async () => {
          const params = full(`${host}/model-x`);
          const whole = await client.messages.create(params);
          const streamed = await client.messages.stream(params).finalMessage();
          for (const m of [whole, streamed]) {
            assert.deepEqual(m.content, [
              { type: "thinking", thinking: REASONING, signature: "" },
              { type: "text", text: answerOf(host) },
            ]);
            assert.equal(m.usage.output_tokens, 7, "the host's own usage, not an estimate");
          }
          const raw = await gw.post({ ...params, stream: true });
          assert.deepEqual((await checkGrammar(await raw.text(), { translated: true })).violations, []);
          const sent = mock.requests.at(-1)!;
          if (!HOST_RULES[host].key) {
            assert.equal(sent.headers.authorization, undefined, "keyless: no credential");
          }
        },
      );
    }
    await t.step("Mistral gets max_tokens, tool_choice any and nine-character tool ids", async () => {
      await client.messages.create({ ...full("mistral/m"), tool_choice: { type: "any" } });
      const body = mock.requests.at(-1)!.body;
      assert.equal(body.max_tokens, 256);
      assert.equal(body.tool_choice, "any");
    });
    await t.step("Groq and Cerebras get max_completion_tokens", async () => {
      for (const host of ["groq", "cerebras"]) {
        await client.messages.create(full(`${host}/m`));
        assert.equal(mock.requests.at(-1)!.body.max_completion_tokens, 256, host);
      }
    });
    await t.step("OpenRouter gets the thinking budget as reasoning.max_tokens", async () => {
      await client.messages.create(full("openrouter/m"));
      assert.deepEqual(mock.requests.at(-1)!.body.reasoning, { max_tokens: 2_048 });
    });
    await t.step("what a host cannot do is a 400 naming the provider, with no upstream call", async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [
          { ...full("cerebras/m"), tool_choice: { type: "any" } },
          /provider cerebras cannot force a tool call/,
        ],
        [
          { ...full("ollama/m"), tool_choice: { type: "tool", name: "get_weather" } },
          /provider ollama cannot force/,
        ],
        [{ ...full("xai/m"), stop_sequences: ["END"] }, /stop_sequences: provider xai does not accept stop/],
        [
          {
            ...full("deepseek/m"),
            output_config: { format: { type: "json_schema", schema: { type: "object" } } },
          },
          /provider deepseek cannot honour structured outputs/,
        ],
      ];
      for (const [body, message] of cases) {
        const before = mock.requests.length;
        const response = await gw.post(body);
        const error = (await response.json()).error;
        assert.equal(response.status, 400);
        assert.equal(error.type, "invalid_request_error");
        assert.match(error.message, message);
        assert.equal(mock.requests.length, before);
      }
    });
  } finally {
    await gw.close();
    await mock.close();
  }
});
