/**
 * Scenario 3, gateway killed mid-stream: streaming and non-streaming load through `deno serve
 * gateway/main.ts` (mock upstreams on loopback, libSQL ledger file), with SIGKILL and SIGTERM at random
 * moments and a restart on the same port each time. Clients must see a complete answer or a clean error;
 * the ledger must hold every delivered request once, except — after a SIGKILL only — rows queued in the
 * last flush window (GATEWAY_USAGE_FLUSH_MS plus the write under way); the budget a restarted gateway enforces must
 * equal the ledger's spend.
 */
import { startHarness } from "../gateway/harness.ts";
import { GATEWAY_ENTRY, type GatewayOutcome, sendMessages } from "./gateway_load.ts";
import { freePort, Gate, prng, type ServiceProcess, sleep, spawnServe } from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runGatewayKill}. */
export interface GatewayKillOptions {
  /** Faults to inject (SIGKILL and SIGTERM alternately). */
  faults: number;
  /** Concurrent clients. */
  clients: number;
  /** Load between faults: a random time in [minGapMs, maxGapMs). */
  minGapMs: number;
  /** See minGapMs. */
  maxGapMs: number;
  /** The ledger's flush interval in the gateway processes. */
  flushMs: number;
  /** Seed of the fault moments. */
  seed: number;
}

const PRICING = `pricing:
  openai/fx-text: { input: 10, output: 20 }
  openai/fx-slow: { input: 10, output: 20 }
  anthropic/claude-fx-paced: { input: 10, output: 20 }
`;
const MIX: [string, boolean][] = [
  ["openai/fx-text", false],
  ["openai/fx-text", true],
  ["openai/fx-slow", true],
  ["anthropic/claude-fx-paced", true],
];

interface Generation {
  end?: { signal: "SIGKILL" | "SIGTERM"; at: number };
}

/** Runs the scenario and returns its counts and invariants. */
export async function runGatewayKill(options: GatewayKillOptions): Promise<ScenarioResult> {
  const result = emptyResult("3 gateway SIGKILL/SIGTERM mid-stream");
  const h = await startHarness({}, PRICING);
  const env = { ...h.env, LOG_LEVEL: "error", GATEWAY_USAGE_FLUSH_MS: String(options.flushMs) };
  const port = freePort();
  const random = prng(options.seed);
  let gateway: ServiceProcess | undefined;
  try {
    const { id, key } = await h.store.create("chaos-kill", { budgetUsd: 1000, budgetPeriod: "day" });
    gateway = await spawnServe(GATEWAY_ENTRY, env, { port });
    await sleep(400); // past the key cache's refresh gap for new keys
    const generations: Generation[] = [{}];
    const delivered: { requestId: string; at: number; generation: number }[] = [];
    const unclean: GatewayOutcome[] = [];
    let stopping = false;
    const gate = new Gate();
    const client = async (i: number) => {
      for (let n = i; !stopping; n++) {
        const [model, stream] = MIX[n % MIX.length];
        await gate.wait();
        const outcome = await sendMessages(gateway!.url, key, model, stream);
        result.requests++;
        if (outcome.kind === "complete") {
          result.answered++;
          delivered.push({
            requestId: outcome.requestId!,
            at: performance.now(),
            generation: generations.length - 1,
          });
        } else if (outcome.kind === "clean") {
          result.failedCleanly++;
        } else unclean.push(outcome);
      }
    };
    const clients = Array.from({ length: options.clients }, (_, i) => client(i));
    let sigkills = 0;
    for (let f = 0; f < options.faults; f++) {
      await sleep(options.minGapMs + random() * (options.maxGapMs - options.minGapMs));
      const signal = f % 2 === 0 ? "SIGKILL" : "SIGTERM";
      if (signal === "SIGKILL") sigkills++;
      const at = performance.now();
      generations[generations.length - 1].end = { signal, at };
      const stopped = gateway.stop(signal);
      // Clients already under way see the fault; new ones wait for the restart instead of spinning.
      gate.close();
      await stopped;
      generations.push({});
      result.faults++;
      gateway = await spawnServe(GATEWAY_ENTRY, env, { port });
      gate.open();
      const probe = await sendMessages(gateway.url, key, "openai/fx-text", false);
      result.recoverMs.push(performance.now() - at);
      if (probe.kind === "complete") {
        delivered.push({
          requestId: probe.requestId!,
          at: performance.now(),
          generation: generations.length - 1,
        });
      }
    }
    await sleep(options.minGapMs);
    stopping = true;
    gate.open();
    await Promise.all(clients);
    generations[generations.length - 1].end = { signal: "SIGTERM", at: performance.now() };
    await gateway.stop("SIGTERM");

    // The ledger against what the clients received.
    const rows = await h.db.selectFrom("gateway_usage").select(["request_id", "cost_usd"]).where(
      "key_id",
      "=",
      id,
    )
      .execute();
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.request_id, (counts.get(row.request_id) ?? 0) + 1);
    result.duplicated = [...counts.values()].filter((n) => n > 1).length;
    let inWindow = 0;
    let worstAgeMs = 0;
    const lostDetail: string[] = [];
    // The flush window: a row waits at most flushMs, then the write under way (allowed 1 s on a loaded machine).
    const windowMs = options.flushMs + 1000;
    for (const d of delivered) {
      if (counts.has(d.requestId)) continue;
      const end = generations[d.generation].end!;
      const age = end.at - d.at;
      if (end.signal === "SIGKILL" && age <= windowMs) {
        inWindow++;
        worstAgeMs = Math.max(worstAgeMs, age);
      } else {
        result.lost++;
        if (lostDetail.length < 5) lostDetail.push(`${Math.round(age)} ms before a ${end.signal}`);
      }
    }
    check(
      result,
      "every client saw a complete answer or a clean error",
      unclean.length === 0,
      unclean.slice(0, 3).map((u) => `${u.status} ${u.detail}`).join("; "),
    );
    check(
      result,
      "no delivered answer is missing from the ledger beyond the flush window",
      result.lost === 0,
      `${result.lost} missing`,
    );
    check(
      result,
      `after a SIGKILL at most the flush window (GATEWAY_USAGE_FLUSH_MS ${options.flushMs} + one write, ≤ 1 s) is missing; none after a SIGTERM`,
      true,
      `${inWindow} rows of the last ${Math.round(worstAgeMs)} ms before ${sigkills} SIGKILLs`,
    );
    check(result, "no request is in the ledger twice", result.duplicated === 0);

    // Budgets after restart: a budget of exactly the ledger's spend is spent, and the refusal names it.
    const spent = rows.reduce((sum, r) => sum + r.cost_usd, 0);
    await h.store.update(id, { budgetUsd: Number(spent.toFixed(6)), budgetPeriod: "day" });
    gateway = await spawnServe(GATEWAY_ENTRY, env, { port });
    await sleep(400);
    const refused = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({
        model: "openai/fx-text",
        max_tokens: 64,
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
    const message = (await refused.json()).error?.message ?? "";
    const seen = Number(/\$([\d.]+) spent/.exec(message)?.[1] ?? NaN);
    check(
      result,
      "the restarted gateway's budget counter equals the ledger's spend",
      refused.status === 402 && Math.abs(seen - spent) < 0.0001,
      `ledger $${spent.toFixed(4)}, gateway ${refused.status} "$${seen} spent"`,
    );
    result.notes.push(
      `${delivered.length} answers delivered, ${rows.length} ledger rows, ${sigkills} SIGKILLs`,
    );
    return result;
  } finally {
    await gateway?.stop("SIGKILL");
    await h.close();
  }
}
