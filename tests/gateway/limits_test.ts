/**
 * Bounded memory: an upstream answer larger than GATEWAY_UPSTREAM_MAX_BODY_BYTES (announced or not), a
 * stream line larger than GATEWAY_UPSTREAM_MAX_SSE_LINE_BYTES and a huge error body are cut off after about
 * the limit — the gateway answers `api_error` and hangs up instead of buffering what the upstream offers.
 */
import assert from "node:assert/strict";
import { eventsOf, lazyBody, sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const MiB = 1024 * 1024;
const OFFERED = 64 * MiB;

Deno.test(
  "upstream bodies over the limits are refused after about the limit, not buffered",
  e2e,
  async (t) => {
    const counters = new Map<string, { sent: number }>();
    const upstream = await startFaultyUpstream((r) => {
      const model = String(r.body.model);
      const counter = { sent: 0 };
      counters.set(model, counter);
      if (model.includes("announced")) {
        // Announces its size: refused before a byte of the body is read.
        return lazyBody(OFFERED, "x", counter, "application/json", { "content-length": String(OFFERED) });
      }
      if (model.includes("error")) return new Response(lazyBody(OFFERED, "e", counter).body, { status: 500 });
      if (model.includes("line")) {
        return lazyBody(OFFERED, "y", counter, "text/event-stream"); // one endless SSE line
      }
      return lazyBody(OFFERED, '{"pad":"', counter); // chunked, no length
    });
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-limits-openai",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ANTHROPIC_API_KEY: "sk-test-limits-anthropic",
      ANTHROPIC_BASE_URL: upstream.url,
      GATEWAY_UPSTREAM_MAX_BODY_BYTES: String(MiB),
      GATEWAY_UPSTREAM_MAX_SSE_LINE_BYTES: String(MiB),
    });
    const rssBefore = Deno.memoryUsage().rss;
    const sentFor = async (model: string) => {
      await sleep(100); // let the upstream notice the hang-up
      return counters.get(model.replace(/^openai\//, ""))!.sent;
    };
    try {
      for (const model of ["claude-huge", "openai/huge", "claude-announced", "openai/announced"]) {
        await t.step(`${model}: a whole body over the limit is api_error`, async () => {
          const r = await gw.post({ model, ...ask });
          const text = await r.text();
          assert.equal(r.status, 500, text.slice(0, 200));
          assert.equal(JSON.parse(text).error.type, "api_error");
          assert.match(JSON.parse(text).error.message, /larger than 1048576 bytes/);
          assert.ok(await sentFor(model) < 8 * MiB, `the upstream sent ${await sentFor(model)} bytes`);
        });
      }
      for (const model of ["claude-line", "openai/line"]) {
        await t.step(`${model}: a stream line over the limit ends in event: error`, async () => {
          const r = await gw.post({ model, ...ask, stream: true });
          const events = eventsOf(await r.text());
          assert.equal(events.at(-1)!.event, "error");
          assert.match(
            JSON.parse(events.at(-1)!.data).error.message,
            /stream line larger than 1048576 bytes/,
          );
          assert.ok(await sentFor(model) < 8 * MiB, `the upstream sent ${await sentFor(model)} bytes`);
        });
      }
      await t.step("a huge error body is read only for its excerpt", async () => {
        const r = await gw.post({ model: "openai/error", ...ask });
        assert.equal(r.status, 500);
        await r.body?.cancel();
        assert.ok(
          await sentFor("openai/error") < 8 * MiB,
          `the upstream sent ${await sentFor("openai/error")} bytes`,
        );
      });
      await t.step("the gateway's memory stayed bounded", () => {
        const grown = Deno.memoryUsage().rss - rssBefore;
        assert.ok(grown < 200 * MiB, `RSS grew by ${Math.round(grown / MiB)} MiB`);
      });
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);
