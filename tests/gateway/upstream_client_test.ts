/**
 * Both upstream HTTP clients give the same answers: the built-in pooled HTTP/1.1 client (the default,
 * which every other test uses) and Deno's fetch (GATEWAY_UPSTREAM_CLIENT=fetch, chosen automatically when
 * a proxy is configured).
 */
import assert from "node:assert/strict";
import { readGatewayConfig } from "../../gateway/config/mod.ts";
import { type Harness, rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const MODELS = ["openai/fx-parallel", "openai/fx-crlf-comments", "gemini/gx-text", "claude-fx-tool"];

async function answers(h: Harness): Promise<string[]> {
  const out: string[] = [];
  for (const model of MODELS) {
    for (const stream of [false, true]) {
      const r = await rawPost(h, "/v1/messages", { model, ...ask, stream });
      assert.equal(r.status, 200, `${model} stream=${stream}: ${r.text}`);
      // Generated message ids differ between runs; everything else must not.
      out.push(r.text.replace(/"msg_[\w-]+"/g, '"msg_"'));
    }
  }
  const limited = await rawPost(h, "/v1/messages", { model: "openai/fx-slow-429", ...ask });
  out.push(`${limited.status} ${limited.headers.get("retry-after")}`);
  return out;
}

Deno.test("the built-in upstream client and Deno's fetch give identical answers", e2e, async () => {
  const builtin = await startHarness();
  const viaFetch = await startHarness({ GATEWAY_UPSTREAM_CLIENT: "fetch" });
  try {
    assert.deepEqual(await answers(viaFetch), await answers(builtin));
  } finally {
    await builtin.close();
    await viaFetch.close();
  }
});

Deno.test("a configured proxy selects Deno's fetch unless GATEWAY_UPSTREAM_CLIENT says otherwise", () => {
  assert.equal(readGatewayConfig({}).upstreamClient, "builtin");
  assert.equal(readGatewayConfig({ HTTPS_PROXY: "http://proxy:3128" }).upstreamClient, "fetch");
  assert.equal(readGatewayConfig({ https_proxy: "http://proxy:3128" }).upstreamClient, "fetch");
  assert.equal(
    readGatewayConfig({ HTTPS_PROXY: "http://proxy:3128", GATEWAY_UPSTREAM_CLIENT: "builtin" })
      .upstreamClient,
    "builtin",
  );
});
