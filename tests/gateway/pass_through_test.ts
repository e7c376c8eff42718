/**
 * The Anthropic pass-through fast path: when nothing in the client's body must change, its exact bytes go
 * upstream, and an upstream answer that already names the requested model comes back byte for byte. Any
 * needed change (a `provider/` prefix to strip, foreign thinking blocks to drop) still re-serializes.
 */
import assert from "node:assert/strict";
import { ANTHROPIC_FIXTURES } from "./fixtures.ts";
import { startHarness } from "./harness.ts";
import { accumulateAnthropic } from "./upstreams/anthropic_mock.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

// Unusual spacing, key order and an unknown field: a re-serialization could not reproduce these bytes.
const BODY = `{ "messages": [ {"role":"user","content":"Hi \\u00e9"} ],
  "max_tokens":64,   "model":"claude-fx-tool", "metadata": {"user_id": "u-1"} }`;

async function post(url: string, key: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body,
  });
  return { status: response.status, text: await response.text() };
}

Deno.test("the Anthropic pass-through forwards bytes unchanged when nothing must change", e2e, async (t) => {
  const h = await startHarness();
  try {
    await t.step(
      "a non-streaming body goes upstream byte for byte and the answer comes back so",
      async () => {
        const r = await post(h.url, h.key, BODY);
        assert.equal(r.status, 200);
        assert.equal(h.anthropic.requests.at(-1)!.raw, BODY);
        assert.equal(r.text, JSON.stringify(accumulateAnthropic(ANTHROPIC_FIXTURES["claude-fx-tool"])));
      },
    );

    await t.step("a streaming body goes upstream byte for byte", async () => {
      const body = BODY.replace(`"max_tokens":64,`, `"max_tokens":64, "stream" : true,`);
      const r = await post(h.url, h.key, body);
      assert.equal(r.status, 200);
      assert.match(r.text, /event: message_stop/);
      assert.equal(h.anthropic.requests.at(-1)!.raw, body);
    });

    await t.step(
      "a provider-prefixed model is rewritten upstream and echoed back to the client",
      async () => {
        const r = await post(h.url, h.key, BODY.replace(`"claude-fx-tool"`, `"anthropic/claude-fx-tool"`));
        assert.equal(r.status, 200);
        const sent = h.anthropic.requests.at(-1)!;
        assert.notEqual(sent.raw, BODY);
        assert.equal(sent.body.model, "claude-fx-tool");
        assert.equal(sent.body.stream, false);
        assert.deepEqual(sent.body.metadata, { user_id: "u-1" });
        assert.equal(JSON.parse(r.text).model, "anthropic/claude-fx-tool");
      },
    );

    await t.step("a finished stream's upstream connection is reused by the next request", async () => {
      const body = BODY.replace(`"max_tokens":64,`, `"max_tokens":64, "stream":true,`)
        .replace("claude-fx-tool", "claude-fx-paced");
      const ports: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await post(h.url, h.key, body);
        assert.match(r.text, /event: message_stop/);
        ports.push(h.anthropic.requests.at(-1)!.remotePort);
        // The body ends 5 ms after message_stop; the wait leaves a loaded machine time to pool the connection.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.equal(new Set(ports).size, 1, `one upstream connection, got ports ${ports.join(", ")}`);
    });

    await t.step("foreign thinking blocks are dropped, so that body is re-serialized", async () => {
      const body = JSON.stringify({
        model: "claude-fx-tool",
        max_tokens: 64,
        messages: [
          { role: "user", content: "Hi" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "gw-openai:abc" },
              { type: "text", text: "Hello" },
            ],
          },
          { role: "user", content: "Again" },
        ],
      });
      const r = await post(h.url, h.key, body);
      assert.equal(r.status, 200);
      const sent = h.anthropic.requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
      assert.deepEqual(sent.messages[1].content, [{ type: "text", text: "Hello" }]);
    });
  } finally {
    await h.close();
  }
});
