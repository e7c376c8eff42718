/**
 * Scenario 1, auth killed mid-flight: refresh chains and a stream of code exchanges against
 * `deno serve auth/main.ts` (deployed configuration, libSQL file); SIGKILL at random moments, restarted on
 * the same port each time. A request cut by the kill is retried with the same token once the service is
 * back: the retry either works (the cut request never committed) or is refused as a replay, which revokes
 * the grant and so the successor nobody received. At the end every token a client holds must work once and
 * its predecessor must not; `PRAGMA integrity_check` must say `ok`.
 */
import {
  authorizeCodes,
  exchangeCode,
  integrityCheck,
  prepareAuth,
  refresh,
  spawnAuth,
  type TokenAnswer,
} from "./auth_fixture.ts";
import { freePort, Gate, prng, type ServiceProcess, sleep } from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runAuthKill}. */
export interface AuthKillOptions {
  /** SIGKILLs to inject. */
  kills: number;
  /** Concurrent refresh chains. */
  chains: number;
  /** Codes the exchange stream may use. */
  codes: number;
  /** Load between two kills: a random time in [minGapMs, maxGapMs). */
  minGapMs: number;
  /** See minGapMs. */
  maxGapMs: number;
  /** Seed of the kill moments. */
  seed: number;
}

interface Chain {
  current: string;
  used: string[];
}

/** Runs the scenario and returns its counts and invariants. */
export async function runAuthKill(options: AuthKillOptions): Promise<ScenarioResult> {
  const result = emptyResult("1 auth SIGKILL mid-flight");
  const fixture = await prepareAuth();
  const port = freePort();
  let service: ServiceProcess = await spawnAuth(fixture, { port });
  const url = service.url;
  const gate = new Gate();
  const random = prng(options.seed);
  let stopping = false;
  let unclean = 0;
  let resolvedByReplay = 0;
  let stranded = 0;
  const onAnswer = (a: TokenAnswer) => {
    result.requests++;
    if (a.status === 0 || a.status === 503) result.failedCleanly++;
    else if (a.status >= 500) unclean++;
    else result.answered++;
    return a;
  };
  try {
    const codes = await authorizeCodes(fixture, url, options.chains + options.codes);
    const chains: Chain[] = [];
    for (const code of codes.splice(0, options.chains)) {
      const a = await exchangeCode(fixture, url, code);
      if (!a.body?.refresh_token) throw new Error(`code exchange failed: ${a.status}`);
      chains.push({ current: a.body.refresh_token, used: [] });
    }
    const delivered: { code: string; refreshToken: string }[] = [];

    /** Sends `attempt` until an answer that is not a cut arrives; a cut waits for the restart. */
    const settle = async (
      attempt: () => Promise<TokenAnswer>,
    ): Promise<{ a: TokenAnswer; retried: boolean }> => {
      let retried = false;
      for (;;) {
        await gate.wait();
        const a = onAnswer(await attempt());
        if (a.status !== 0 && a.status !== 503) return { a, retried };
        retried = true;
        await sleep(20);
      }
    };

    /** A fresh chain for a stranded client: a new code through the authorize endpoint, exchanged. */
    const reauthorize = async (chain: Chain) => {
      for (;;) {
        await gate.wait();
        const code = await authorizeCodes(fixture, url, 1).then((c) => c[0], () => undefined);
        if (!code) {
          await sleep(20);
          continue;
        }
        const { a } = await settle(() => exchangeCode(fixture, url, code));
        if (a.body?.refresh_token) {
          chain.current = a.body.refresh_token;
          chain.used = [];
          return;
        }
      }
    };

    const chainWorker = async (chain: Chain) => {
      while (!stopping) {
        const token = chain.current;
        const { a, retried } = await settle(() => refresh(fixture, url, token));
        if (a.status === 200 && a.body?.refresh_token) {
          chain.used.push(token);
          chain.current = a.body.refresh_token;
          continue;
        }
        if (retried && a.status === 400) {
          // The cut request had committed: its answer was never delivered, and the retry is a replay.
          stranded++;
          if (/revoked/.test(a.body?.error_description ?? "")) resolvedByReplay++;
        } else {
          // A token the client received stopped working without any cut request: lost.
          result.lost++;
        }
        await reauthorize(chain);
      }
    };

    const codeWorker = async () => {
      while (!stopping && codes.length) {
        const code = codes.pop()!;
        const { a, retried } = await settle(() => exchangeCode(fixture, url, code));
        if (a.status === 200 && a.body?.refresh_token) {
          delivered.push({ code, refreshToken: a.body.refresh_token });
        } else if (retried && a.status === 400) resolvedByReplay++;
        else result.lost++;
      }
    };

    const workers = [...chains.map(chainWorker), codeWorker(), codeWorker()];
    for (let k = 0; k < options.kills; k++) {
      await sleep(options.minGapMs + random() * (options.maxGapMs - options.minGapMs));
      gate.close();
      const killedAt = performance.now();
      await service.stop("SIGKILL");
      result.faults++;
      service = await spawnAuth(fixture, { port });
      // Recovered: the restarted service issues a code again (session read, code written).
      codes.push(...await authorizeCodes(fixture, url, 1));
      result.recoverMs.push(performance.now() - killedAt);
      gate.open();
    }
    await sleep(options.minGapMs);
    stopping = true;
    await Promise.all(workers);

    // Every token a client holds works exactly once; its predecessor (used) is refused.
    let finalRequests = 0;
    for (const chain of chains) {
      const a = await refresh(fixture, url, chain.current);
      finalRequests++;
      if (a.status !== 200) result.lost++;
      const previous = chain.used.at(-1);
      if (previous) {
        const replay = await refresh(fixture, url, previous);
        finalRequests++;
        if (replay.status === 200) result.duplicated++;
      }
    }
    for (const { code, refreshToken } of delivered) {
      const a = await refresh(fixture, url, refreshToken);
      const replay = await exchangeCode(fixture, url, code);
      finalRequests += 2;
      if (a.status !== 200) result.lost++;
      if (replay.status === 200) result.duplicated++;
    }
    await service.stop("SIGTERM");
    const integrity = await integrityCheck(fixture.dbPath);
    check(result, "every token a client received works (once)", result.lost === 0, `lost ${result.lost}`);
    check(result, "no refresh token or code is accepted twice", result.duplicated === 0);
    check(result, "PRAGMA integrity_check is ok", integrity === "ok", integrity);
    check(result, "no cut request surfaced as a 5xx other than 503", unclean === 0, `${unclean} seen`);
    check(
      result,
      "a chain is stranded only when its last answer was never delivered (the retry was refused as a replay)",
      stranded <= resolvedByReplay,
      `${stranded} chains stranded and re-authorized, ${resolvedByReplay} cut requests that had committed`,
    );
    result.notes.push(
      `${chains.length} refresh chains, ${delivered.length} code exchanges delivered; ${finalRequests} ` +
        `verification requests after the last restart (not counted above)`,
    );
    return result;
  } finally {
    stopping = true;
    gate.open();
    await service.stop("SIGKILL");
    await fixture.remove();
  }
}
