/**
 * The console routes without a test of their own: the usage exports (CSV and JSON: columns, filters, date
 * range, headers, sign-in required, no CSRF for a GET, never prompt text) and the Providers page (the circuit
 * breaker's state as an upstream fails, opens, and recovers), against a loopback Anthropic upstream.
 */
import assert from "node:assert/strict";
import { Browser, signIn, startConsoleHarness } from "./console_harness.ts";
import type { UsageRow } from "../../gateway/usage/ledger.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const DAY = 86_400_000;
const PROMPT = "the launch code is PURPLE-ELEPHANT-42";

/** A loopback Anthropic upstream that answers 200 or, while `failing`, 503; it counts what it received. */
function startUpstream() {
  const state = { failing: false, received: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    state.received++;
    await request.body?.cancel();
    if (state.failing) {
      return Response.json({ type: "error", error: { type: "api_error", message: "upstream down" } }, {
        status: 503,
      });
    }
    return Response.json({
      id: "msg_test",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 7 },
    });
  });
  return { state, url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

async function ask(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "anthropic/claude-test",
      max_tokens: 16,
      messages: [{ role: "user", content: PROMPT }],
    }),
  });
  await response.body?.cancel();
  return response.status;
}

const row = (at: number, key_id: string, model: string, extra: Partial<UsageRow> = {}): UsageRow => ({
  at,
  key_id,
  model,
  provider: "anthropic",
  served_model: model,
  attempts: 1,
  input_tokens: 100,
  output_tokens: 10,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0.25,
  status: 200,
  error_type: null,
  latency_ms: 40,
  ttft_ms: null,
  stream: 0,
  trace_id: "t",
  request_id: `req_${at}_${key_id}`,
  warning: null,
  ...extra,
});

Deno.test(
  "usage exports as CSV and JSON with the range, step and key filters, as a download, to admins only",
  e2e,
  async () => {
    const upstream = startUpstream();
    try {
      await using h = await startConsoleHarness("local-developer", {
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const a = await h.store.create("team a", {});
      const b = await h.store.create("team b", {});
      assert.equal(await ask(h.url, a.key), 200, "a real request with a prompt goes into the ledger");
      const today = Date.parse(new Date().toISOString().slice(0, 10));
      const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const [d3, d2, d1] = [today - 3 * DAY, today - 2 * DAY, today - DAY];
      h.ledger.record(row(d3 + 3_600_000, a.id, "claude-a"));
      h.ledger.record(row(d3 + 7_200_000, a.id, "claude-b", { status: 529, latency_ms: 90, cost_usd: 0 }));
      h.ledger.record(row(d1 + 60_000, a.id, "claude-a", { input_tokens: 50 }));
      h.ledger.record(row(d2 + 60_000, b.id, "claude-a")); // another key
      h.ledger.record(row(today - 4 * DAY, a.id, "claude-a")); // before the range
      await h.ledger.flush();

      const query = `since=${date(d3)}&until=${date(d1)}&step=day&by=model&key=${a.id}`;
      const anonymous = await new Browser().request(`${h.url}/admin/usage/export.csv?${query}`);
      assert.equal(anonymous.status, 303, "no session: sign in first");
      assert.match(
        anonymous.headers.get("location")!,
        /^\/admin\/sign-in\?return_to=%2Fadmin%2Fusage%2Fexport\.csv/,
      );
      assert.ok(!(await anonymous.text()).includes("bucket_start"));

      const browser = new Browser();
      await signIn(h, browser);
      // A GET needs no CSRF token: none is sent here.
      const csv = await browser.request(`${h.url}/admin/usage/export.csv?${query}`);
      assert.equal(csv.status, 200);
      assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
      assert.equal(
        csv.headers.get("content-disposition"),
        `attachment; filename="usage-${date(d3)}-${date(d1)}-day.csv"`,
      );
      assert.equal(csv.headers.get("cache-control"), "no-store");
      const csvText = await csv.text();
      assert.deepEqual(csvText.trimEnd().split("\n"), [
        "bucket_start,requests,errors,input_tokens,output_tokens,cost_usd,avg_latency_ms,max_latency_ms",
        `${new Date(d3).toISOString()},2,1,200,20,0.25,65,90`,
        `${new Date(d2).toISOString()},0,0,0,0,0,,`,
        `${new Date(d1).toISOString()},1,0,50,10,0.25,40,40`,
      ]);

      const json = await browser.request(`${h.url}/admin/usage/export.json?${query}`);
      assert.equal(json.status, 200);
      assert.equal(json.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(
        json.headers.get("content-disposition"),
        `attachment; filename="usage-${date(d3)}-${date(d1)}-day.json"`,
      );
      const body = JSON.parse(await json.clone().text());
      assert.deepEqual(body.filters, {
        since: new Date(d3).toISOString(),
        until: new Date(today).toISOString(),
        step: "day",
        by: "model",
        key: a.id,
      });
      assert.equal(body.total.requests, 3);
      assert.equal(body.total.errors, 1);
      assert.equal(body.total.input_tokens, 250);
      assert.deepEqual(body.series.map((s: { requests: number }) => s.requests), [2, 0, 1]);
      assert.deepEqual(
        body.groups.map((g: { group: string; requests: number }) => [g.group, g.requests]),
        [["claude-a", 2], ["claude-b", 1]],
      );

      // Every key, hourly, today only: 24 buckets, the real request among them.
      const hourly = await browser.request(
        `${h.url}/admin/usage/export.csv?since=${date(today)}&until=${date(today)}&step=hour`,
      );
      const hourlyLines = (await hourly.text()).trimEnd().split("\n");
      assert.equal(hourlyLines.length, 1 + 24);
      assert.equal(hourlyLines.slice(1).reduce((n, l) => n + Number(l.split(",")[1]), 0), 1);
      const allJson = await (await browser.request(
        `${h.url}/admin/usage/export.json?since=${date(today)}&until=${date(today)}&by=key`,
      )).text();
      assert.equal(JSON.parse(allJson).groups[0].input_tokens, 11, "the real request's usage");

      for (const text of [csvText, await json.text(), allJson]) {
        assert.ok(!text.includes("PURPLE-ELEPHANT"), "no prompt text in an export");
      }

      const bad = await browser.request(
        `${h.url}/admin/usage/export.csv?since=${date(d1)}&until=${date(d3)}`,
      );
      assert.equal(bad.status, 400);
      assert.match(bad.headers.get("content-type")!, /^text\/html/);
      assert.match(await bad.text(), /The end date is before the start date/);
    } finally {
      await upstream.close();
    }
  },
);

Deno.test(
  "the Providers page shows the circuit closed, counting failures, open after them, and closed after a probe",
  e2e,
  async () => {
    const upstream = startUpstream();
    const dir = await Deno.makeTempDir({ prefix: "console-providers-" });
    try {
      await Deno.writeTextFile(`${dir}/gateway.yaml`, "circuit_breaker: { failures: 3, cooldown_ms: 400 }\n");
      await using h = await startConsoleHarness("local-developer", {
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: upstream.url,
        GATEWAY_CONFIG: `${dir}/gateway.yaml`,
      });
      const { key } = await h.store.create("probe", {});
      const browser = new Browser();
      await signIn(h, browser);
      const circuit = async () => {
        const html = await (await browser.request(`${h.url}/admin/providers`)).text();
        const cells =
          /<td>anthropic<\/td>.*?<td class="mono">([^<]*)<\/td><td class="(status-\w+)">([^<]*)<\/td>/s
            .exec(html);
        assert.ok(cells, "the anthropic provider is listed");
        return { host: cells[1], status: cells[2], text: cells[3] };
      };
      assert.deepEqual(await circuit(), {
        host: new URL(upstream.url).host,
        status: "status-ok",
        text: "closed",
      });

      upstream.state.failing = true;
      assert.notEqual(await ask(h.url, key), 200);
      const failures = upstream.state.received;
      assert.ok(failures >= 1 && failures < 3, `one request, ${failures} upstream attempts`);
      assert.deepEqual(await circuit(), {
        host: new URL(upstream.url).host,
        status: "status-ok",
        text: `closed (${failures} recent failures)`,
      });

      while (upstream.state.received < 3) await ask(h.url, key);
      const open = await circuit();
      assert.equal(open.status, "status-err");
      // The circuit is the deployment's; the page names it.
      assert.match(open.text, /^open \(probe in 1 s\): anthropic\/claude-[\w.-]+$/);
      const beforeSkip = upstream.state.received;
      assert.notEqual(await ask(h.url, key), 200);
      assert.equal(upstream.state.received, beforeSkip, "an open circuit does not call the upstream");
      await h.ledger.flush();
      const html = await (await browser.request(`${h.url}/admin/providers`)).text();
      assert.match(html, /100\.0 % of \d+/, "the error rate of the last hour");

      upstream.state.failing = false;
      await new Promise((r) => setTimeout(r, 450));
      assert.equal(await ask(h.url, key), 200, "the probe after the cool-down succeeds");
      assert.deepEqual(await circuit(), {
        host: new URL(upstream.url).host,
        status: "status-ok",
        text: "closed",
      });
    } finally {
      await upstream.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
