/**
 * `deno task bench:gateway`: the gateway's added cost versus calling the mock upstream directly, on
 * loopback. Lanes: c=1 non-streaming pass-through (Anthropic → Anthropic) and translated (Anthropic →
 * OpenAI Chat Completions) p50/p99; throughput at c=32; streaming added time-to-first-token and per-frame
 * gap; the gateway process's RSS idle and after load. The gateway runs as self-hosted, behind the
 * connection guard; a second gateway process with GATEWAY_CONNECTION_GUARD=off runs beside it in every lane
 * (rows "connection guard off"), so the guard's cost is read within one run. `--access-log` runs the
 * gateway with its access log on (JSON lines to a file through the batched sink of gateway/log_sink.ts).
 * Prints a table. Not part of `deno task test`.
 *
 * Noise (other processes on a shared 2-core machine): each c=1 lane is measured in `--rounds` rounds, each
 * round interleaving direct and gateway requests one by one after a warm-up; the added p50/p99 reported is
 * the median over rounds of (gateway percentile − direct percentile), with the best round beside it. The
 * quantity is the one issue 5 defines (c=1, gateway vs the mock upstream directly); only the aggregation
 * over repeated runs is more robust. `--only c1,fallback,throughput,stream,inprocess,limits,ledger,https`
 * runs a subset; `https` the HTTPS lanes beside plain-HTTP ones (gateway_https.ts); the `fallback` lane measures the added latency of a fallback after a 503; `limits` what a key
 * with limits adds in-process (in-process counters, then Redis on loopback; see gateway_limits.ts);
 * `ledger` c=32 throughput of a gateway process with the usage ledger on against one with it off; `openai`
 * the OpenAI-format endpoints (Chat Completions translated to Anthropic, and passed through to the OpenAI
 * upstream) beside the Messages-API lane to the same upstream, c=1 interleaved and c=32; `identity` what an
 * OP access token adds over an API key in-process, cached and on a cache miss (one introspection round trip
 * to the real auth service on loopback; see gateway_identity.ts).
 * `--baseline <dir>` is the paired A/B mode against another checkout instead (gateway_ab.ts; `--features`
 * adds this checkout with ledger, limits and tracing on, and the baseline with the same flags when its bench
 * server has them; `--with limits,tracing` (repeatable) adds one such pair per feature set; `--ab-model
 * openai/gpt-bench` the translated lane);
 * with `--timeline`, the per-request timeline of both at c=1 instead (gateway_timeline.ts; `--variant <dir>`
 * adds further checkouts, unguarded; `--requests` and `--rounds` set its size).
 */
import { parseArgs } from "node:util";
import { measureInProcess } from "./gateway_inprocess.ts";
import { measureLanesInProcess } from "./gateway_openai_inprocess.ts";
import { measureLimits } from "./gateway_limits.ts";
import { measureIdentity } from "./gateway_identity.ts";
import { makeTestCertificate } from "../tests/e2e/support/tls.ts";
import { measureHttps } from "./gateway_https.ts";
import { runAb } from "./gateway_ab.ts";
import { runTimeline } from "./gateway_timeline.ts";
import {
  anthropicBody,
  BENCH_MESSAGES,
  BENCH_TOOLS,
  median,
  type Paired,
  pairedGroups,
  percentile,
  streamTimes,
  type Target,
  throughput,
} from "./gateway_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    streams: { type: "string", default: "200" },
    only: {
      type: "string",
      default: "c1,fallback,throughput,stream,inprocess,limits,identity,ledger,https,openai,routing",
    },
    "access-log": { type: "boolean", default: false },
    baseline: { type: "string" },
    features: { type: "boolean", default: false },
    with: { type: "string", multiple: true, default: [] },
    "ab-model": { type: "string", default: "claude-bench" },
    timeline: { type: "boolean", default: false },
    variant: { type: "string", multiple: true, default: [] },
  },
});
const N = Number(values.requests);
const ROUNDS = Math.max(1, Number(values.rounds));
const ONLY = new Set(values.only.split(","));
const SECONDS = Number(values.seconds);
const STREAMS = Number(values.streams);
const FRAMES = 32;
const GAP_MS = 2;

const worker = new Worker(new URL("./gateway_mock_upstream.ts", import.meta.url), { type: "module" });
const upstream: string = await new Promise((resolve) => {
  worker.onmessage = (e) => resolve(e.data.url);
  worker.postMessage({ frames: FRAMES, gapMs: GAP_MS });
});

/** A server process of the bench (a gateway or a null proxy) and what it printed on start. */
interface Spawned {
  /** The process. */
  child: Deno.ChildProcess;
  /** Its first stdout line, parsed (`url`, `key`). */
  info: Record<string, string>;
}

/** Starts `script` in front of `upstream` (default: the plain-HTTP mock), `env` added to its environment. */
async function spawnServer(
  script: string,
  extra: string[] = [],
  options: { upstream?: string; env?: Record<string, string> } = {},
): Promise<Spawned> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(script, import.meta.url).pathname, options.upstream ?? upstream, ...extra],
    env: options.env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  // Keep draining stdout (access-log lines, when on) as a log collector would, so the pipe never blocks.
  (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // process gone
    }
  })();
  return { child, info: JSON.parse(text.split("\n")[0]) };
}
const messages = BENCH_MESSAGES;
const tools = BENCH_TOOLS;
const openAiBody = (stream = false) =>
  JSON.stringify({
    model: "gpt-bench",
    max_completion_tokens: 1024,
    messages: [{ role: "system", content: "Be concise." }, ...messages],
    tools: tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    })),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });

/** The same conversation as a Responses API request (issue 27's Responses lane). */
const responsesBody = (model: string) =>
  JSON.stringify({
    model,
    max_output_tokens: 1024,
    instructions: "Be concise.",
    input: messages,
    tools: tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.input_schema,
    })),
    stream: false,
    store: false,
  });

const upHeaders = {
  "content-type": "application/json",
  authorization: "Bearer sk-bench",
  "x-api-key": "sk-ant-bench",
};

if (values.baseline && values.timeline) {
  // The per-request timeline of both checkouts at c=1 (gateway_timeline.ts).
  await runTimeline({
    baseline: values.baseline.replace(/\/$/, ""),
    variants: values.variant.map((dir) => dir.replace(/\/$/, "")),
    upstream,
    requests: N,
    rounds: ROUNDS,
    body: (model) => anthropicBody(model),
    model: values["ab-model"],
  });
  worker.terminate();
  Deno.exit(0);
}
if (values.baseline) {
  // The paired A/B mode (gateway_ab.ts): this checkout against another, then nothing else.
  await runAb({
    baseline: values.baseline.replace(/\/$/, ""),
    upstream,
    rounds: ROUNDS,
    seconds: SECONDS,
    requests: Math.min(N, 2000),
    features: values.features,
    with: values.with,
    direct: { url: `${upstream}/v1/messages`, headers: upHeaders, body: anthropicBody("claude-bench") },
    body: (model) => anthropicBody(model),
    model: values["ab-model"],
  });
  worker.terminate();
  Deno.exit(0);
}

const logFile = values["access-log"]
  ? await Deno.makeTempFile({ prefix: "gateway-bench-access-", suffix: ".log" })
  : undefined;
const { child, info } = await spawnServer(
  "./gateway_bench_server.ts",
  logFile ? ["--access-log", logFile] : [],
);
const { url: gateway, key } = info;
const withLedger = ONLY.has("ledger")
  ? await spawnServer("./gateway_bench_server.ts", ["--ledger"])
  : undefined;
// The same gateway on Deno.serve alone (GATEWAY_CONNECTION_GUARD=off): the guard's cost, measured in the same run.
const unguarded = await spawnServer("./gateway_bench_server.ts", ["--guard", "off"]);
const nullProxy = await spawnServer("./gateway_null_proxy.ts");
const nullBuiltin = await spawnServer("./gateway_null_proxy.ts", ["--client", "builtin"]);

function rssMb(pid: number): number {
  // `ps` rather than /proc so the task needs no --allow-all.
  const out = new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)], stdout: "piped" })
    .outputSync();
  return Number(new TextDecoder().decode(out.stdout).trim()) / 1024;
}

const gwHeaders = { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" };
const lanes = {
  directAnthropic: {
    url: `${upstream}/v1/messages`,
    headers: upHeaders,
    body: anthropicBody("claude-bench"),
  },
  passThrough: { url: `${gateway}/v1/messages`, headers: gwHeaders, body: anthropicBody("claude-bench") },
  directOpenAi: { url: `${upstream}/v1/chat/completions`, headers: upHeaders, body: openAiBody() },
  translated: { url: `${gateway}/v1/messages`, headers: gwHeaders, body: anthropicBody("openai/gpt-bench") },
  passThroughOff: {
    url: `${unguarded.info.url}/v1/messages`,
    headers: { ...gwHeaders, "x-api-key": unguarded.info.key },
    body: anthropicBody("claude-bench"),
  },
  translatedOff: {
    url: `${unguarded.info.url}/v1/messages`,
    headers: { ...gwHeaders, "x-api-key": unguarded.info.key },
    body: anthropicBody("openai/gpt-bench"),
  },
  openAiToAnthropic: {
    url: `${gateway}/openai/v1/chat/completions`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: openAiBody().replace('"gpt-bench"', '"claude-bench"'),
  },
  responsesToAnthropic: {
    url: `${gateway}/openai/v1/responses`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: responsesBody("claude-bench"),
  },
  openAiPassThrough: {
    url: `${gateway}/openai/v1/chat/completions`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: openAiBody().replace('"gpt-bench"', '"openai/gpt-bench"'),
  },
  nullProxy: {
    url: `${nullProxy.info.url}/v1/messages`,
    headers: upHeaders,
    body: anthropicBody("claude-bench"),
  },
  nullBuiltin: {
    url: `${nullBuiltin.info.url}/v1/messages`,
    headers: upHeaders,
    body: anthropicBody("claude-bench"),
  },
};

/** The c=1 comparisons of `vias` with `direct`, interleaved (see gateway_measure.ts). */
async function pairedLatencies(direct: Target, vias: Target[], n: number): Promise<Paired[]> {
  return (await pairedGroups([{ direct, vias }], n, ROUNDS))[0];
}

async function streamLane(direct: Target, viaGateway: Target, marker = "text_delta") {
  const d = { ttft: [] as number[], gaps: [] as number[] };
  const g = { ttft: [] as number[], gaps: [] as number[] };
  for (let i = 0; i < 20; i++) await streamTimes(viaGateway, marker);
  for (let i = 0; i < STREAMS; i++) {
    const a = await streamTimes(direct, '"content":"tok');
    const b = await streamTimes(viaGateway, marker);
    d.ttft.push(a.ttft);
    d.gaps.push(...a.gaps);
    g.ttft.push(b.ttft);
    g.gaps.push(...b.gaps);
  }
  for (const list of [d.ttft, d.gaps, g.ttft, g.gaps]) list.sort((x, y) => x - y);
  return { d, g };
}

const loadBefore = Deno.loadavg().map((v) => v.toFixed(2)).join(", ");
const rows: string[][] = [];
const ms = (v: number) => v.toFixed(3);
const rssIdle = rssMb(child.pid);

const c1Row = (name: string, p: Paired, target: string) =>
  rows.push([
    name,
    `${ms(percentile(p.direct, 50))} / ${ms(percentile(p.direct, 99))}`,
    `${ms(percentile(p.via, 50))} / ${ms(percentile(p.via, 99))}`,
    `${ms(p.added[0])} / ${ms(p.added[1])}  (best ${ms(p.best[0])} / ${ms(p.best[1])})`,
    target,
  ]);
if (ONLY.has("c1")) {
  const [pass, passOff] = await pairedLatencies(lanes.directAnthropic, [
    lanes.passThrough,
    lanes.passThroughOff,
  ], N);
  c1Row("pass-through c=1 (Anthropic→Anthropic)", pass, "p50 ≤ 0.3, p99 ≤ 1");
  c1Row("pass-through c=1, connection guard off", passOff, "");
}
if (ONLY.has("c1")) {
  const [translated, translatedOff] = await pairedLatencies(
    lanes.directOpenAi,
    [lanes.translated, lanes.translatedOff],
    N,
  );
  c1Row("translated c=1 (Anthropic→OpenAI)", translated, "p99 ≤ 1.5");
  c1Row("translated c=1, connection guard off", translatedOff, "");
  const [floor, floorBuiltin] = await pairedLatencies(
    lanes.directAnthropic,
    [lanes.nullProxy, lanes.nullBuiltin],
    N,
  );
  c1Row("reference: null Deno proxy c=1, fetch (floor of one hop)", floor, "");
  c1Row("reference: null Deno proxy c=1, gateway's HTTP/1.1 client", floorBuiltin, "");
}
if (ONLY.has("fallback")) {
  // The first target answers 503 at once, the fallback (the same mock, another provider) serves; "direct" is
  // the translated lane through the gateway, so "added" is what the failed attempt and the switch cost.
  // Interleaving keeps openai's circuit closed (each direct request is a success), so every fallback
  // request really calls the failing target first.
  const fallback = { ...lanes.translated, body: anthropicBody("openai/gpt-503") };
  const [row] = await pairedLatencies(lanes.translated, [fallback], Math.min(N, 2000));
  c1Row("fallback after a 503 (vs the translated lane through the gateway)", row, "");
}

if (ONLY.has("routing")) {
  // Routing costs (issue 28): an exact alias, a glob alias, and three deployments behind one name, each
  // re-serialized like the alias row, interleaved per round so their added p50s compare within one run.
  const via = (model: string) => ({ ...lanes.passThrough, body: anthropicBody(model) });
  const [exact, glob, leastBusy, latency] = await pairedLatencies(lanes.directAnthropic, [
    via("claude-bench-alias"),
    via("claude-bench-glob-x"),
    via("claude-bench-least-busy"),
    via("claude-bench-latency"),
  ], N);
  c1Row("routing c=1: exact alias (same run as the next rows)", exact, "");
  c1Row("routing c=1: glob alias", glob, "p50 within 0.02 ms of the exact alias");
  c1Row("routing c=1: 3 deployments, least-busy", leastBusy, "p50 within 0.02 ms of the exact alias");
  c1Row("routing c=1: 3 deployments, latency", latency, "p50 within 0.02 ms of the exact alias");
}

let openAiLine = "openai lane not run";
if (ONLY.has("openai")) {
  // Every lane warmed to steady state first, alike: without it the c=1 rounds met a gateway that had served
  // ≈ 2,800 requests per lane, each lane's own translation code still in V8's middle tier (Maglev; TurboFan
  // after 15,000–19,000 calls by --trace-opt), so the lanes with more code of their own paid more for it.
  const alias = { ...lanes.passThrough, body: anthropicBody("claude-bench-alias") };
  for (
    const lane of [
      lanes.passThrough,
      alias,
      lanes.openAiToAnthropic,
      lanes.responsesToAnthropic,
      lanes.translated,
      lanes.openAiPassThrough,
    ]
  ) await throughput(lane, 32, SECONDS);
  // Each OpenAI-ingress lane beside the Messages-API lane reaching the same upstream, interleaved per round.
  const [messagesToAnthropic, messagesReserialized, chatToAnthropic, responsesToAnthropic] =
    await pairedLatencies(
      lanes.directAnthropic,
      [
        lanes.passThrough,
        alias,
        lanes.openAiToAnthropic,
        lanes.responsesToAnthropic,
      ],
      N,
    );
  c1Row("Messages API c=1 → Anthropic, bytes relayed (same run as the next rows)", messagesToAnthropic, "");
  c1Row("Messages API c=1 → Anthropic by an alias, re-serialized", messagesReserialized, "");
  c1Row("OpenAI Chat ingress c=1 → Anthropic (translated)", chatToAnthropic, "within 10% of the rows above");
  c1Row("OpenAI Responses ingress c=1 → Anthropic (translated)", responsesToAnthropic, "");
  const [messagesToOpenAi, chatToOpenAi] = await pairedLatencies(lanes.directOpenAi, [
    lanes.translated,
    lanes.openAiPassThrough,
  ], N);
  c1Row("Messages API c=1 → OpenAI (same run as the next row)", messagesToOpenAi, "");
  c1Row("OpenAI Chat ingress c=1 → OpenAI (pass-through)", chatToOpenAi, "within 10% of the row above");
  const work = await measureLanesInProcess([
    {
      name: "Messages API → Anthropic (bytes relayed)",
      path: "/v1/messages",
      body: anthropicBody("claude-bench"),
    },
    {
      name: "OpenAI Chat ingress → Anthropic",
      path: "/openai/v1/chat/completions",
      body: lanes.openAiToAnthropic.body,
    },
    {
      name: "OpenAI Responses ingress → Anthropic",
      path: "/openai/v1/responses",
      body: lanes.responsesToAnthropic.body,
    },
    {
      name: "Messages API → OpenAI (translated)",
      path: "/v1/messages",
      body: anthropicBody("openai/gpt-bench"),
    },
    {
      name: "OpenAI Chat ingress → OpenAI (pass-through)",
      path: "/openai/v1/chat/completions",
      body: lanes.openAiPassThrough.body,
    },
  ], N);
  for (const [name, us] of work) {
    rows.push([`gateway work only, in-process: ${name}`, "—", "—", `${ms(us / 1000)} (p50)`, ""]);
  }
  const rates: Record<string, number[]> = { ma: [], ca: [], mo: [], co: [] };
  for (let r = 0; r < ROUNDS; r++) {
    rates.ma.push(await throughput(lanes.passThrough, 32, SECONDS));
    rates.ca.push(await throughput(lanes.openAiToAnthropic, 32, SECONDS));
    rates.mo.push(await throughput(lanes.translated, 32, SECONDS));
    rates.co.push(await throughput(lanes.openAiPassThrough, 32, SECONDS));
  }
  const [ma, ca, mo, co] = [median(rates.ma), median(rates.ca), median(rates.mo), median(rates.co)];
  openAiLine =
    `throughput c=32 (medians of ${ROUNDS} alternating ${SECONDS} s rounds): → Anthropic: Messages API ` +
    `${ma.toFixed(0)} req/s, OpenAI Chat ingress ${ca.toFixed(0)} req/s (ratio ${
      (ca / ma).toFixed(3)
    }); → OpenAI: ` +
    `Messages API ${mo.toFixed(0)} req/s, OpenAI Chat ingress pass-through ${co.toFixed(0)} req/s (ratio ${
      (co / mo).toFixed(3)
    }); target ratio ≥ 0.90`;
}

let rpsDirect = NaN, rpsGateway = NaN, rpsPass = NaN, rpsGatewayOff = NaN, rpsPassOff = NaN;
if (ONLY.has("throughput")) {
  rpsDirect = await throughput(lanes.directOpenAi, 32, SECONDS);
  rpsGateway = await throughput(lanes.translated, 32, SECONDS);
  rpsPass = await throughput(lanes.passThrough, 32, SECONDS);
  rpsGatewayOff = await throughput(lanes.translatedOff, 32, SECONDS);
  rpsPassOff = await throughput(lanes.passThroughOff, 32, SECONDS);
}
const rssLoaded = rssMb(child.pid);

if (ONLY.has("stream")) {
  const streamDirect = { ...lanes.directOpenAi, body: openAiBody(true) };
  const streamGateway = { ...lanes.translated, body: anthropicBody("openai/gpt-bench", true) };
  const s = await streamLane(streamDirect, streamGateway);
  rows.push([
    `stream TTFT (Anthropic→OpenAI, ${FRAMES} frames ${GAP_MS} ms apart)`,
    `${ms(percentile(s.d.ttft, 50))} / ${ms(percentile(s.d.ttft, 99))}`,
    `${ms(percentile(s.g.ttft, 50))} / ${ms(percentile(s.g.ttft, 99))}`,
    `${ms(percentile(s.g.ttft, 50) - percentile(s.d.ttft, 50))} / ${
      ms(percentile(s.g.ttft, 99) - percentile(s.d.ttft, 99))
    }`,
    "TTFT ≤ 1",
  ]);
  const off = await streamLane(streamDirect, {
    ...lanes.translatedOff,
    body: anthropicBody("openai/gpt-bench", true),
  });
  rows.push([
    "stream TTFT, connection guard off",
    `${ms(percentile(off.d.ttft, 50))} / ${ms(percentile(off.d.ttft, 99))}`,
    `${ms(percentile(off.g.ttft, 50))} / ${ms(percentile(off.g.ttft, 99))}`,
    `${ms(percentile(off.g.ttft, 50) - percentile(off.d.ttft, 50))} / ${
      ms(percentile(off.g.ttft, 99) - percentile(off.d.ttft, 99))
    }`,
    "",
  ]);
  rows.push([
    "stream per-frame gap",
    `${ms(percentile(s.d.gaps, 50))} / ${ms(percentile(s.d.gaps, 99))}`,
    `${ms(percentile(s.g.gaps, 50))} / ${ms(percentile(s.g.gaps, 99))}`,
    `${ms(percentile(s.g.gaps, 50) - percentile(s.d.gaps, 50))} / ${
      ms(percentile(s.g.gaps, 99) - percentile(s.d.gaps, 99))
    }`,
    "",
  ]);
  const streamNull = {
    url: `${nullProxy.info.url}/v1/chat/completions`,
    headers: upHeaders,
    body: openAiBody(true),
  };
  for (const [name, proxy] of [["fetch", nullProxy], ["gateway's HTTP/1.1 client", nullBuiltin]] as const) {
    const n = await streamLane(
      streamDirect,
      { ...streamNull, url: `${proxy.info.url}/v1/chat/completions` },
      '"content":"tok',
    );
    rows.push([
      `reference: null Deno proxy stream TTFT, ${name}`,
      `${ms(percentile(n.d.ttft, 50))} / ${ms(percentile(n.d.ttft, 99))}`,
      `${ms(percentile(n.g.ttft, 50))} / ${ms(percentile(n.g.ttft, 99))}`,
      `${ms(percentile(n.g.ttft, 50) - percentile(n.d.ttft, 50))} / ${
        ms(percentile(n.g.ttft, 99) - percentile(n.d.ttft, 99))
      }`,
      "",
    ]);
  }
}
const rssAfter = rssMb(child.pid);
let ledgerLine = "ledger lane not run";
if (withLedger) {
  // Alternating rounds (off, on, off, on, …) so drift on a shared machine hits both alike.
  const on = { ...lanes.translated, url: `${withLedger.info.url}/v1/messages` };
  on.headers = { ...gwHeaders, "x-api-key": withLedger.info.key };
  const off: number[] = [], onRates: number[] = [];
  await throughput(lanes.translated, 32, 1);
  await throughput(on, 32, 1);
  for (let r = 0; r < ROUNDS; r++) {
    off.push(await throughput(lanes.translated, 32, SECONDS));
    onRates.push(await throughput(on, 32, SECONDS));
  }
  const [a, b] = [median(off), median(onRates)];
  ledgerLine =
    `throughput c=32 translated, usage ledger off ${a.toFixed(0)} req/s, on ${b.toFixed(0)} req/s ` +
    `(on/off ${(b / a).toFixed(3)}; medians of ${ROUNDS} alternating ${SECONDS} s rounds; target ≥ 0.90)`;
}
if (ONLY.has("limits")) {
  const cost = await measureLimits(anthropicBody("claude-bench"), N, ROUNDS);
  for (
    const [name, c, target] of [
      ["limited key vs unlimited, in-process counters (gateway work only)", cost.memory, "p50 ≤ 0.1"],
      ["limited key vs unlimited, Redis on loopback (gateway work only)", cost.redis, "p50 ≤ 0.5"],
    ] as const
  ) {
    rows.push([
      name,
      "—",
      `${ms(c.freeP50)} (unlimited p50)`,
      `${ms(c.added[0])} / ${ms(c.added[1])}`,
      target,
    ]);
  }
}
if (ONLY.has("identity")) {
  const cost = await measureIdentity(anthropicBody("claude-bench"), N, ROUNDS);
  rows.push([
    "OP access token (cache warm) vs API key, in-process (gateway work only)",
    "—",
    `${ms(cost.keyP50)} (API key p50)`,
    `${ms(cost.warmAdded[0])} / ${ms(cost.warmAdded[1])}`,
    "p50 ≤ 0.05",
  ]);
  rows.push([
    "OP access token, cache miss (one introspection of the auth service on loopback)",
    "—",
    `${ms(cost.keyP50)} (API key p50)`,
    `${ms(cost.missAdded[0])} / ${ms(cost.missAdded[1])}`,
    "measured",
  ]);
}
if (ONLY.has("inprocess")) {
  const inProcess = await measureInProcess(anthropicBody, N);
  for (
    const [name, [p50, p99]] of [
      ["gateway work only, in-process: pass-through", inProcess.passThrough],
      ["gateway work only, in-process: translated", inProcess.translated],
      ["gateway work only, in-process: stream to first delta", inProcess.streamFirstDelta],
    ] as const
  ) rows.push([name, "—", "—", `${ms(p50)} / ${ms(p99)}`, ""]);
}
let httpsLines: string[] = [];
const httpsChildren: Deno.ChildProcess[] = [];
const wireWorkers: Worker[] = [];
if (ONLY.has("https")) {
  // A throwaway CA (openssl, at run time); the gateway processes trust it through DENO_CERT as a user would
  // trust a private CA, the bench's direct calls through a client of their own.
  const cert = await makeTestCertificate();
  const caFile = await Deno.makeTempFile({ prefix: "gateway-bench-ca-", suffix: ".pem" });
  await Deno.writeTextFile(caFile, cert.caPem);
  // Both mocks on the same server code (gateway_mock_wire.ts), one plain, one TLS: the lanes differ by TLS.
  const startWire = async (tls?: { cert: string; key: string }) => {
    const w = new Worker(new URL("./gateway_mock_wire.ts", import.meta.url), { type: "module" });
    wireWorkers.push(w);
    return await new Promise<string>((resolve) => {
      w.onmessage = (e) => resolve(e.data.url);
      w.postMessage({ frames: FRAMES, gapMs: GAP_MS, tls });
    });
  };
  const [plainUpstream, tlsUpstream] = [
    await startWire(),
    await startWire({ cert: cert.certPem, key: cert.keyPem }),
  ];
  const plain = await spawnServer("./gateway_bench_server.ts", [], { upstream: plainUpstream });
  const overTls = (client: string) =>
    spawnServer("./gateway_bench_server.ts", ["--client", client], {
      upstream: tlsUpstream,
      env: { DENO_CERT: caFile },
    });
  const [builtin, viaFetch] = [await overTls("builtin"), await overTls("fetch")];
  httpsChildren.push(plain.child, builtin.child, viaFetch.child);
  const client = Deno.createHttpClient({ caCerts: [cert.caPem] });
  const result = await measureHttps({
    http: { upstream: plainUpstream, gateway: { url: plain.info.url, key: plain.info.key } },
    https: {
      upstream: tlsUpstream,
      client,
      builtin: { url: builtin.info.url, key: builtin.info.key },
      fetch: { url: viaFetch.info.url, key: viaFetch.info.key },
    },
    anthropicBody,
    openAiBody,
    upstreamHeaders: upHeaders,
    n: N,
    rounds: ROUNDS,
    seconds: SECONDS,
    streams: STREAMS,
  });
  rows.push(...result.rows);
  httpsLines = result.lines;
  client.close();
  await Deno.remove(caFile);
}
const header = [
  "lane",
  "direct p50 / p99 ms",
  "gateway p50 / p99 ms",
  "added p50 / p99 ms",
  "target (added, ms)",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
console.log(
  `\nGateway benchmark: ${N} paired requests per c=1 lane in ${ROUNDS} rounds (added = median of rounds), ` +
    `${SECONDS} s per throughput lane, ` +
    `${STREAMS} streams; loopback, mock upstream in a worker, gateway in its own process.\n`,
);
console.log(`load average at the start: ${loadBefore}`);
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const row of rows) console.log(line(row));
console.log(
  `\nthroughput c=32: direct mock ${rpsDirect.toFixed(0)} req/s; gateway translated ${
    rpsGateway.toFixed(0)
  } req/s; gateway pass-through ${rpsPass.toFixed(0)} req/s; connection guard off: translated ${
    rpsGatewayOff.toFixed(0)
  } req/s, pass-through ${rpsPassOff.toFixed(0)} req/s`,
);
console.log(ledgerLine);
console.log(openAiLine);
for (const l of httpsLines) console.log(l);
console.log(
  `gateway RSS: idle ${rssIdle.toFixed(1)} MB, after throughput ${rssLoaded.toFixed(1)} MB, ` +
    `after streams ${rssAfter.toFixed(1)} MB`,
);

console.log(`load average at the end: ${Deno.loadavg().map((v) => v.toFixed(2)).join(", ")}`);

const children = [
  child,
  unguarded.child,
  nullProxy.child,
  nullBuiltin.child,
  ...(withLedger ? [withLedger.child] : []),
  ...httpsChildren,
];
for (const c of children) c.kill();
await Promise.all(children.map((c) => c.status));
if (logFile) {
  const lines = (await Deno.readTextFile(logFile)).split("\n").filter((l) => l.includes('"msg":"request"'));
  console.log(`access log ON: ${lines.length} request lines written (JSON lines to a file, batched sink)`);
  await Deno.remove(logFile);
} else console.log("access log OFF (run with --access-log to measure with it on)");
worker.terminate();
for (const w of wireWorkers) w.terminate();
