/**
 * Scenario 5, upstreams misbehave under load: one provider per misbehaviour (misbehaving_upstream.ts), each
 * with a fallback to a healthy mock, in front of `deno serve gateway/main.ts`. Every request must end in a
 * complete answer or a well-formed error within the configured deadlines, and the gateway's open file
 * descriptors and RSS must come back to their baseline afterwards (no leaked sockets or buffers).
 */
import { startHarness } from "../gateway/harness.ts";
import { GATEWAY_ENTRY, type GatewayOutcome, sendMessages } from "./gateway_load.ts";
import { type MisbehavingUpstream, MISBEHAVIOURS, startMisbehaving } from "./misbehaving_upstream.ts";
import { processStats, type ServiceProcess, sleep, spawnServe } from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runUpstreamFaults}. */
export interface UpstreamFaultsOptions {
  /** Requests per misbehaviour. */
  requestsPerFault: number;
  /** Concurrent clients. */
  clients: number;
}

const TIMEOUTS = {
  GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: 1000,
  GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: 2000,
  GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: 1500,
};
/** The longest any request may take: every upstream deadline once, plus the fallback's own answer. */
const DEADLINE_MS = TIMEOUTS.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS +
  TIMEOUTS.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS +
  TIMEOUTS.GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS + 3000;

function configOf(upstreams: MisbehavingUpstream[]): string {
  const providers = upstreams.map((u, i) => {
    const scheme = u.behaviour === "tls_stall" ? "https" : "http";
    return `  fault${i}:\n    type: openai-compatible\n    base_url: ${scheme}://127.0.0.1:${u.port}/v1\n` +
      `    api_key_env: CHAOS_UPSTREAM_KEY\n    models: [m]\n`;
  });
  const fallbacks = upstreams.map((_, i) => `  fault${i}/m: [openai/fx-text]\n`);
  // The breaker would stop calling a failing upstream after a few failures; here every request meets it.
  return `providers:\n${providers.join("")}fallbacks:\n${
    fallbacks.join("")
  }circuit_breaker: { failures: 1000000 }\n`;
}

/** Runs the scenario and returns its counts and invariants. */
export async function runUpstreamFaults(options: UpstreamFaultsOptions): Promise<ScenarioResult> {
  const result = emptyResult("5 upstream misbehaves (fallbacks on)");
  const upstreams = MISBEHAVIOURS.map(startMisbehaving);
  const dir = await Deno.makeTempDir({ prefix: "switchyard-chaos-upstream-" });
  await Deno.writeTextFile(`${dir}/gateway.yaml`, configOf(upstreams));
  const h = await startHarness({ GATEWAY_CONFIG: `${dir}/gateway.yaml` });
  let gateway: ServiceProcess | undefined;
  try {
    const env: Record<string, string> = { ...h.env, LOG_LEVEL: "error", CHAOS_UPSTREAM_KEY: "sk-chaos" };
    for (const [name, value] of Object.entries(TIMEOUTS)) env[name] = String(value);
    gateway = await spawnServe(GATEWAY_ENTRY, env);
    await sleep(400);
    // Warm up at the load's own concurrency (modules, pools, the client's keep-alive connections), then the
    // baseline.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from(
          { length: options.clients },
          (_, i) => sendMessages(gateway!.url, h.key, "openai/fx-text", i % 2 === 0),
        ),
      );
    }
    await sleep(TIMEOUTS.GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS + 1000);
    const before = await processStats(gateway.pid);
    const outcomes: (GatewayOutcome & { fault: string })[] = [];
    const total = options.requestsPerFault * upstreams.length;
    let next = 0;
    const client = async () => {
      for (let n = next++; n < total; n = next++) {
        const i = n % upstreams.length;
        const stream = Math.floor(n / upstreams.length) % 2 === 0;
        const outcome = await sendMessages(gateway!.url, h.key, `fault${i}/m`, stream, DEADLINE_MS + 5000);
        outcomes.push({ ...outcome, fault: upstreams[i].behaviour });
      }
    };
    await Promise.all(Array.from({ length: options.clients }, client));
    result.faults = upstreams.reduce((sum, u) => sum + u.accepted, 0);
    // Closing the upstreams ends the sockets they hold open; the gateway must let go of its side too.
    await Promise.all(upstreams.map((u) => u.close()));
    await sleep(TIMEOUTS.GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS + 1000);
    const after = await processStats(gateway.pid);
    result.requests = outcomes.length;
    result.answered = outcomes.filter((o) => o.kind === "complete").length;
    result.failedCleanly = outcomes.filter((o) => o.kind === "clean").length;
    const bad = outcomes.filter((o) => o.kind === "unclean" || o.kind === "refused");
    const late = outcomes.filter((o) => o.ms > DEADLINE_MS);
    check(
      result,
      "every request ends in a complete answer or a well-formed error",
      bad.length === 0,
      bad.slice(0, 4).map((o) => `${o.fault}: ${o.status} ${o.detail}`).join("; "),
    );
    check(
      result,
      `every request ends within the configured deadlines (${DEADLINE_MS} ms)`,
      late.length === 0,
      late.slice(0, 4).map((o) => `${o.fault}: ${Math.round(o.ms)} ms`).join("; ") ||
        `slowest ${Math.round(Math.max(...outcomes.map((o) => o.ms)))} ms`,
    );
    check(
      result,
      "open file descriptors return to their baseline",
      after.fds <= before.fds + 2,
      `${before.fds} before, ${after.fds} after`,
    );
    check(
      result,
      "RSS returns to its baseline (within 25 % or 24 MiB)",
      after.rssMiB <= Math.max(before.rssMiB * 1.25, before.rssMiB + 24),
      `${before.rssMiB.toFixed(1)} MiB before, ${after.rssMiB.toFixed(1)} MiB after`,
    );
    for (const u of upstreams) {
      const mine = outcomes.filter((o) => o.fault === u.behaviour);
      const slowest = Math.max(0, ...mine.map((o) => o.ms));
      result.notes.push(
        `${u.behaviour}: ${mine.filter((o) => o.kind === "complete").length}/${mine.length} complete ` +
          `(by the fallback), ${mine.filter((o) => o.kind === "clean").length} clean errors, slowest ${
            Math.round(slowest)
          } ms`,
      );
    }
    return result;
  } finally {
    await gateway?.stop("SIGKILL");
    await Promise.all(upstreams.map((u) => u.close()));
    await h.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
