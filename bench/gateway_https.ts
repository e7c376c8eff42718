/**
 * The HTTPS lanes of `bench:gateway` (`--only https`): the same gateway in front of the plain-HTTP mock and of
 * a TLS mock (a throwaway test CA, trusted by the gateway processes through DENO_CERT and by the bench's own
 * direct calls through a Deno.createHttpClient), measured in one run, interleaved: c=1 added p50/p99, stream
 * TTFT and per-frame relay time, c=32 throughput, pass-through and translated. Two HTTPS gateways run: the
 * built-in client (GATEWAY_UPSTREAM_CLIENT=builtin, the default) and Deno's fetch (=fetch). "Added" over HTTPS
 * is the gateway against the TLS mock called directly over HTTPS, as a user calling the provider directly
 * would; the ratio HTTPS-added ÷ HTTP-added is the issue 17 target (≤ 1.5).
 */
import { median, pairedGroups, percentile, streamTimes, type Target, throughput } from "./gateway_measure.ts";

/** A gateway process: base URL and key. */
export interface GatewayAt {
  /** Base URL. */
  url: string;
  /** A valid key. */
  key: string;
}

/** What the HTTPS lanes need from the bench. */
export interface HttpsLanesInput {
  /** The plain-HTTP mock and the gateway in front of it. */
  http: { upstream: string; gateway: GatewayAt };
  /** The TLS mock, a client trusting its CA, and the gateways in front of it (built-in client, fetch). */
  https: { upstream: string; client: Deno.HttpClient; builtin: GatewayAt; fetch: GatewayAt };
  /** Request bodies. */
  anthropicBody: (model: string, stream?: boolean) => string;
  /** Request bodies. */
  openAiBody: (stream?: boolean) => string;
  /** Headers of a direct call to the mock. */
  upstreamHeaders: Record<string, string>;
  /** Requests per c=1 lane, rounds, seconds per throughput round, streams per stream lane. */
  n: number;
  rounds: number;
  seconds: number;
  streams: number;
}

/** Rows (lane, direct, gateway, added, target) for the bench's table, and a ratio table as text lines. */
export interface HttpsLanes {
  /** Table rows. */
  rows: string[][];
  /** The ratio table. */
  lines: string[];
}

const ms = (v: number) => v.toFixed(3);
const LANES = ["HTTP", "HTTPS built-in", "HTTPS fetch"] as const;

/** Runs the HTTPS lanes. */
export async function measureHttps(input: HttpsLanesInput): Promise<HttpsLanes> {
  const { http, https } = input;
  const gw = (g: GatewayAt, body: string): Target => ({
    url: `${g.url}/v1/messages`,
    headers: { "content-type": "application/json", "x-api-key": g.key, "anthropic-version": "2023-06-01" },
    body,
  });
  const direct = (upstream: string, path: string, body: string, client?: Deno.HttpClient): Target => ({
    url: `${upstream}${path}`,
    headers: input.upstreamHeaders,
    body,
    client,
  });
  /** [direct HTTP, gateway HTTP, direct HTTPS, gateway HTTPS built-in, gateway HTTPS fetch]. */
  const kinds = (stream: boolean) => ({
    "pass-through": [
      direct(http.upstream, "/v1/messages", input.anthropicBody("claude-bench", stream)),
      gw(http.gateway, input.anthropicBody("claude-bench", stream)),
      direct(https.upstream, "/v1/messages", input.anthropicBody("claude-bench", stream), https.client),
      gw(https.builtin, input.anthropicBody("claude-bench", stream)),
      gw(https.fetch, input.anthropicBody("claude-bench", stream)),
    ],
    translated: [
      direct(http.upstream, "/v1/chat/completions", input.openAiBody(stream)),
      gw(http.gateway, input.anthropicBody("openai/gpt-bench", stream)),
      direct(https.upstream, "/v1/chat/completions", input.openAiBody(stream), https.client),
      gw(https.builtin, input.anthropicBody("openai/gpt-bench", stream)),
      gw(https.fetch, input.anthropicBody("openai/gpt-bench", stream)),
    ],
  });
  const rows: string[][] = [];
  /** metric → added ms for HTTP, HTTPS built-in, HTTPS fetch. */
  const added: Array<[string, number[]]> = [];
  const directOf = [0, 2, 2];
  const viaOf = [1, 3, 4];

  for (const [kind, t] of Object.entries(kinds(false))) {
    const [[viaHttp], [viaBuiltin, viaFetch]] = await pairedGroups(
      [{ direct: t[0], vias: [t[1]] }, { direct: t[2], vias: [t[3], t[4]] }],
      input.n,
      input.rounds,
    );
    [viaHttp, viaBuiltin, viaFetch].forEach((p, i) =>
      rows.push([
        `${kind} c=1, upstream ${LANES[i]}`,
        `${ms(percentile(p.direct, 50))} / ${ms(percentile(p.direct, 99))}`,
        `${ms(percentile(p.via, 50))} / ${ms(percentile(p.via, 99))}`,
        `${ms(p.added[0])} / ${ms(p.added[1])}  (best ${ms(p.best[0])} / ${ms(p.best[1])})`,
        i === 0 ? "" : `HTTPS ÷ HTTP p50 ${ratio(p.added[0], viaHttp.added[0])}`,
      ])
    );
    added.push([`${kind} c=1 added p50`, [viaHttp, viaBuiltin, viaFetch].map((p) => p.added[0])]);
    added.push([`${kind} c=1 added p99`, [viaHttp, viaBuiltin, viaFetch].map((p) => p.added[1])]);
  }

  for (const [kind, t] of Object.entries(kinds(true))) {
    const markers = kind === "translated"
      ? ['"content":"tok', "text_delta", '"content":"tok', "text_delta", "text_delta"]
      : t.map(() => "text_delta");
    const ttft = t.map(() => [] as number[]);
    const relays = t.map(() => [] as number[]);
    for (let i = 0; i < 10; i++) for (let j = 0; j < t.length; j++) await streamTimes(t[j], markers[j]);
    for (let i = 0; i < input.streams; i++) {
      for (let j = 0; j < t.length; j++) {
        const s = await streamTimes(t[j], markers[j]);
        ttft[j].push(s.ttft);
        relays[j].push(...s.relays);
      }
    }
    for (const l of [...ttft, ...relays]) l.sort((x, y) => x - y);
    const pct = (l: number[][], i: number, p: number) =>
      percentile(l[viaOf[i]], p) - percentile(l[directOf[i]], p);
    for (const [metric, lists] of [["stream TTFT", ttft], ["per-frame relay", relays]] as const) {
      LANES.forEach((lane, i) =>
        rows.push([
          `${kind} ${metric}, upstream ${lane}`,
          `${ms(percentile(lists[directOf[i]], 50))} / ${ms(percentile(lists[directOf[i]], 99))}`,
          `${ms(percentile(lists[viaOf[i]], 50))} / ${ms(percentile(lists[viaOf[i]], 99))}`,
          `${ms(pct(lists, i, 50))} / ${ms(pct(lists, i, 99))}`,
          i === 0 ? "" : `HTTPS ÷ HTTP p50 ${ratio(pct(lists, i, 50), pct(lists, 0, 50))}`,
        ])
      );
      added.push([`${kind} ${metric} added p50`, LANES.map((_, i) => pct(lists, i, 50))]);
    }
  }

  const lines: string[] = [];
  const rounds = Math.min(input.rounds, 3);
  for (const [kind, t] of Object.entries(kinds(false))) {
    for (const target of t) await throughput(target, 32, 1);
    const rates = t.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < t.length; j++) rates[j].push(await throughput(t[j], 32, input.seconds));
    }
    const rps = rates.map(median);
    // Little's law: the mean time a request spends at c=32; the gateway's added time per request under load.
    const perRequest = (i: number) => 32_000 / rps[viaOf[i]] - 32_000 / rps[directOf[i]];
    lines.push(
      `throughput c=32 ${kind} (medians of ${rounds} alternating ${input.seconds} s rounds): direct HTTP ${
        rps[0].toFixed(0)
      }, gateway HTTP ${rps[1].toFixed(0)}, direct HTTPS ${rps[2].toFixed(0)}, gateway HTTPS built-in ${
        rps[3].toFixed(0)
      }, gateway HTTPS fetch ${rps[4].toFixed(0)} req/s`,
    );
    added.push([`${kind} c=32 added ms per request`, LANES.map((_, i) => perRequest(i))]);
  }

  lines.push("", "HTTPS-added ÷ HTTP-added (target ≤ 1.5):");
  const header = ["metric", "HTTP added", "HTTPS built-in added", "ratio", "HTTPS fetch added", "ratio"];
  const table = added.map(([metric, [h, b, f]]) => [metric, ms(h), ms(b), ratio(b, h), ms(f), ratio(f, h)]);
  const widths = header.map((c, i) => Math.max(c.length, ...table.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  lines.push(line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...table.map(line));
  return { rows, lines };
}

/** `a ÷ b` as text; "n/a" when b is not a positive amount (an added time within noise of zero). */
function ratio(a: number, b: number): string {
  return b > 0.001 ? `${(a / b).toFixed(2)}×` : "n/a";
}
