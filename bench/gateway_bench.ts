/**
 * `deno task bench:gateway`: the gateway's added cost versus calling the mock upstream directly, on
 * loopback. Lanes: c=1 non-streaming pass-through (Anthropic → Anthropic) and translated (Anthropic →
 * OpenAI Chat Completions) p50/p99; throughput at c=32; streaming added time-to-first-token and per-frame
 * gap; the gateway process's RSS idle and after load. Prints a table. Not part of `deno task test`.
 */
import { parseArgs } from "node:util";
import { measureInProcess } from "./gateway_inprocess.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "3000" },
    seconds: { type: "string", default: "5" },
    streams: { type: "string", default: "200" },
  },
});
const N = Number(values.requests);
const SECONDS = Number(values.seconds);
const STREAMS = Number(values.streams);
const FRAMES = 32;
const GAP_MS = 2;

const worker = new Worker(new URL("./gateway_mock_upstream.ts", import.meta.url), { type: "module" });
const upstream: string = await new Promise((resolve) => {
  worker.onmessage = (e) => resolve(e.data.url);
  worker.postMessage({ frames: FRAMES, gapMs: GAP_MS });
});

async function spawnServer(
  script: string,
): Promise<{ child: Deno.ChildProcess; info: Record<string, string> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(script, import.meta.url).pathname, upstream],
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
  reader.releaseLock();
  return { child, info: JSON.parse(text.split("\n")[0]) };
}
const { child, info } = await spawnServer("./gateway_bench_server.ts");
const { url: gateway, key } = info;
const nullProxy = await spawnServer("./gateway_null_proxy.ts");

function rssMb(pid: number): number {
  // `ps` rather than /proc so the task needs no --allow-all.
  const out = new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)], stdout: "piped" })
    .outputSync();
  return Number(new TextDecoder().decode(out.stdout).trim()) / 1024;
}

const messages = [
  { role: "user", content: "You are helping plan a trip. ".repeat(30) },
  { role: "assistant", content: "Sure, tell me more about where you want to go. ".repeat(10) },
  { role: "user", content: "Three days in Lisbon in spring; what should I see?" },
];
const tools = [{
  name: "get_weather",
  description: "Weather forecast for a city",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  },
}];
const anthropicBody = (model: string, stream = false) =>
  JSON.stringify({ model, max_tokens: 1024, system: "Be concise.", messages, tools, stream });
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

interface Target {
  url: string;
  headers: Record<string, string>;
  body: string;
}
const gwHeaders = { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" };
const upHeaders = {
  "content-type": "application/json",
  authorization: "Bearer sk-bench",
  "x-api-key": "sk-ant-bench",
};
const lanes = {
  directAnthropic: {
    url: `${upstream}/v1/messages`,
    headers: upHeaders,
    body: anthropicBody("claude-bench"),
  },
  passThrough: { url: `${gateway}/v1/messages`, headers: gwHeaders, body: anthropicBody("claude-bench") },
  directOpenAi: { url: `${upstream}/v1/chat/completions`, headers: upHeaders, body: openAiBody() },
  translated: { url: `${gateway}/v1/messages`, headers: gwHeaders, body: anthropicBody("openai/gpt-bench") },
  nullProxy: {
    url: `${nullProxy.info.url}/v1/messages`,
    headers: upHeaders,
    body: anthropicBody("claude-bench"),
  },
};

async function once(target: Target): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${target.url}: ${response.status}`);
  return performance.now() - t0;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Interleaves the two targets so drift (GC, CPU contention) hits both equally. */
async function pairedLatency(a: Target, b: Target, n: number): Promise<[number[], number[]]> {
  for (let i = 0; i < 300; i++) await once(i % 2 ? a : b);
  const la: number[] = [];
  const lb: number[] = [];
  for (let i = 0; i < n; i++) {
    la.push(await once(a));
    lb.push(await once(b));
  }
  return [la.sort((x, y) => x - y), lb.sort((x, y) => x - y)];
}

async function throughput(target: Target, concurrency: number, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      await once(target);
      done++;
    }
  }));
  return done / seconds;
}

async function streamTimes(target: Target, marker: string): Promise<{ ttft: number; gaps: number[] }> {
  const t0 = performance.now();
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ttft = -1;
  let last = 0;
  const gaps: number[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const now = performance.now();
    const text = decoder.decode(value, { stream: true });
    if (!text.includes(marker)) continue;
    if (ttft < 0) ttft = now - t0;
    else gaps.push(now - last);
    last = now;
  }
  return { ttft, gaps };
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

const rows: string[][] = [];
const ms = (v: number) => v.toFixed(3);
const rssIdle = rssMb(child.pid);

const [directA, pass] = await pairedLatency(lanes.directAnthropic, lanes.passThrough, N);
const [directO, trans] = await pairedLatency(lanes.directOpenAi, lanes.translated, N);
for (
  const [name, direct, via, target] of [
    ["pass-through c=1 (Anthropic→Anthropic)", directA, pass, "p50 ≤ 0.3, p99 ≤ 1"],
    ["translated c=1 (Anthropic→OpenAI)", directO, trans, "p99 ≤ 1.5"],
  ] as const
) {
  rows.push([
    name,
    `${ms(percentile(direct, 50))} / ${ms(percentile(direct, 99))}`,
    `${ms(percentile(via, 50))} / ${ms(percentile(via, 99))}`,
    `${ms(percentile(via, 50) - percentile(direct, 50))} / ${
      ms(percentile(via, 99) - percentile(direct, 99))
    }`,
    target,
  ]);
}

const [directN, viaNull] = await pairedLatency(lanes.directAnthropic, lanes.nullProxy, N);
rows.push([
  "reference: null Deno proxy c=1 (floor of one hop)",
  `${ms(percentile(directN, 50))} / ${ms(percentile(directN, 99))}`,
  `${ms(percentile(viaNull, 50))} / ${ms(percentile(viaNull, 99))}`,
  `${ms(percentile(viaNull, 50) - percentile(directN, 50))} / ${
    ms(percentile(viaNull, 99) - percentile(directN, 99))
  }`,
  "",
]);

const rpsDirect = await throughput(lanes.directOpenAi, 32, SECONDS);
const rpsGateway = await throughput(lanes.translated, 32, SECONDS);
const rpsPass = await throughput(lanes.passThrough, 32, SECONDS);
const rssLoaded = rssMb(child.pid);

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
const n = await streamLane(streamDirect, streamNull, '"content":"tok');
rows.push([
  "reference: null Deno proxy stream TTFT",
  `${ms(percentile(n.d.ttft, 50))} / ${ms(percentile(n.d.ttft, 99))}`,
  `${ms(percentile(n.g.ttft, 50))} / ${ms(percentile(n.g.ttft, 99))}`,
  `${ms(percentile(n.g.ttft, 50) - percentile(n.d.ttft, 50))} / ${
    ms(percentile(n.g.ttft, 99) - percentile(n.d.ttft, 99))
  }`,
  "",
]);
const rssAfter = rssMb(child.pid);
const inProcess = await measureInProcess(anthropicBody, N);
for (
  const [name, [p50, p99]] of [
    ["gateway work only, in-process: pass-through", inProcess.passThrough],
    ["gateway work only, in-process: translated", inProcess.translated],
    ["gateway work only, in-process: stream to first delta", inProcess.streamFirstDelta],
  ] as const
) rows.push([name, "—", "—", `${ms(p50)} / ${ms(p99)}`, ""]);

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
  `\nGateway benchmark: ${N} paired requests per c=1 lane, ${SECONDS} s per throughput lane, ` +
    `${STREAMS} streams; loopback, mock upstream in a worker, gateway in its own process.\n`,
);
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const row of rows) console.log(line(row));
console.log(
  `\nthroughput c=32: direct mock ${rpsDirect.toFixed(0)} req/s; gateway translated ${
    rpsGateway.toFixed(0)
  } req/s; gateway pass-through ${rpsPass.toFixed(0)} req/s`,
);
console.log(
  `gateway RSS: idle ${rssIdle.toFixed(1)} MB, after throughput ${rssLoaded.toFixed(1)} MB, ` +
    `after streams ${rssAfter.toFixed(1)} MB`,
);

child.kill();
nullProxy.child.kill();
await Promise.all([child.status, nullProxy.child.status]);
worker.terminate();
