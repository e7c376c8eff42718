/**
 * Measuring helpers shared by the `bench:gateway` lanes: one request, percentiles, c=N throughput, a stream's
 * TTFT and per-frame times, and c=1 comparisons interleaved request by request.
 */

/** The bench's Messages conversation: a short chat with one tool (the mock answers `claude-bench`). */
export const BENCH_MESSAGES = [
  { role: "user", content: "You are helping plan a trip. ".repeat(30) },
  { role: "assistant", content: "Sure, tell me more about where you want to go. ".repeat(10) },
  { role: "user", content: "Three days in Lisbon in spring; what should I see?" },
];

/** The bench's one tool. */
export const BENCH_TOOLS = [{
  name: "get_weather",
  description: "Weather forecast for a city",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  },
}];

/** The bench's Messages request body for `model`. */
export const anthropicBody = (model: string, stream = false) =>
  JSON.stringify({
    model,
    max_tokens: 1024,
    system: "Be concise.",
    messages: BENCH_MESSAGES,
    tools: BENCH_TOOLS,
    stream,
  });

/** One request the bench repeats. */
export interface Target {
  /** URL. */
  url: string;
  /** Request headers. */
  headers: Record<string, string>;
  /** JSON body text. */
  body: string;
  /** Deno HTTP client (an HTTPS mock's CA) for direct calls to a TLS upstream. */
  client?: Deno.HttpClient;
}

/** Sends `target` once and reads the whole answer; resolves with the elapsed ms. */
export async function once(target: Target): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(target.url, {
    method: "POST",
    headers: target.headers,
    body: target.body,
    client: target.client,
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${target.url}: ${response.status}`);
  return performance.now() - t0;
}

/** The `p`th percentile of an ascending list. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The median of a list. */
export const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** Requests per second completed by `concurrency` loops over `target` during `seconds`. */
export async function throughput(target: Target, concurrency: number, seconds: number): Promise<number> {
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

const SENT_AT = /@(\d+\.\d+)/g;

/**
 * One stream: time to the first chunk holding `marker`, the gaps between such chunks, and each delta's relay
 * time (received − the send time the mock wrote into it; the clocks of the mock's worker and this thread
 * may differ by a constant, which cancels in gateway − direct).
 */
export async function streamTimes(
  target: Target,
  marker: string,
): Promise<{ ttft: number; gaps: number[]; relays: number[] }> {
  const t0 = performance.now();
  const response = await fetch(target.url, {
    method: "POST",
    headers: target.headers,
    body: target.body,
    client: target.client,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ttft = -1;
  let last = 0;
  const gaps: number[] = [];
  const relays: number[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const now = performance.now();
    const text = decoder.decode(value, { stream: true });
    if (!text.includes(marker)) continue;
    if (ttft < 0) ttft = now - t0;
    else gaps.push(now - last);
    last = now;
    const at = performance.timeOrigin + now;
    for (const m of text.matchAll(SENT_AT)) relays.push(at - Number(m[1]));
  }
  return { ttft, gaps, relays };
}

/** A direct target and the gateway targets compared with it. */
export interface Group {
  /** The upstream called directly. */
  direct: Target;
  /** Gateways in front of it. */
  vias: Target[];
}

/** One c=1 comparison: pooled percentiles of both targets, and the added p50/p99 aggregated over rounds. */
export interface Paired {
  /** Direct latencies, ascending. */
  direct: number[];
  /** Gateway latencies, ascending. */
  via: number[];
  /** Median over rounds of the added p50 and p99. */
  added: [number, number];
  /** The round with the smallest added p50, and its added p99. */
  best: [number, number];
}

/** Shuffles `order` in place (Fisher–Yates) with `next`, a generator of numbers in [0, 1). */
function shuffle(order: number[], next: () => number): void {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
}

/** A small seeded generator (mulberry32): the same visiting orders in every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Interleaves every target of every group request by request, so drift (GC, CPU contention) hits all
 * equally, in `rounds` rounds of n/rounds requests each, each round after a warm-up; each via is compared
 * with its own group's direct target. The targets are visited in a new random order each time round, so
 * that every target follows every other equally often: in a fixed order the via right after the direct
 * target always found its gateway idle, while the next ones arrived as that gateway was still finishing
 * the previous answer (measured ≈ 8 µs of p50 in its favour, docs/gateway.md, issue 27). Returns the
 * comparisons group by group, via by via.
 */
export async function pairedGroups(groups: Group[], n: number, rounds: number): Promise<Paired[][]> {
  const targets = groups.flatMap((g) => [g.direct, ...g.vias]);
  const all = targets.map(() => [] as number[]);
  const perRound = targets.map(() => [] as Array<[number, number]>);
  const per = Math.ceil(n / rounds);
  const order = targets.map((_, t) => t);
  const next = seeded(27);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < 200; i++) for (const t of targets) await once(t);
    const lists = targets.map(() => [] as number[]);
    for (let i = 0; i < per; i++) {
      shuffle(order, next);
      for (const t of order) lists[t].push(await once(targets[t]));
    }
    for (const l of lists) l.sort((x, y) => x - y);
    lists.forEach((l, t) => {
      all[t].push(...l);
      perRound[t].push([percentile(l, 50), percentile(l, 99)]);
    });
  }
  for (const l of all) l.sort((x, y) => x - y);
  const out: Paired[][] = [];
  let t = 0;
  for (const g of groups) {
    const d = t++;
    out.push(g.vias.map(() => {
      const v = t++;
      const rounds = perRound[v].map(([p50, p99], r) => [p50 - perRound[d][r][0], p99 - perRound[d][r][1]]);
      return {
        direct: all[d],
        via: all[v],
        added: [median(rounds.map((x) => x[0])), median(rounds.map((x) => x[1]))],
        best: rounds.reduce((m, x) => (x[0] < m[0] ? x : m)) as [number, number],
      };
    }));
  }
  return out;
}
