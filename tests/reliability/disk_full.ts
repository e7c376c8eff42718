/**
 * Scenario 6, disk full: the auth and gateway databases on a small tmpfs (mounted here; a machine that
 * refuses the mount says so in the result and the scenario is skipped), filled to the last byte under
 * load and then freed. The auth service must answer writes it cannot make with a clear 503 and never leave
 * half a grant (a code spent without its tokens, a refresh token rotated without its successor); the gateway
 * must keep serving while its ledger backs off, and the ledger must catch up once space returns; neither
 * database may be corrupted.
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
import { sql } from "kysely";
import { startHarness } from "../gateway/harness.ts";
import { GATEWAY_ENTRY, sendMessages } from "./gateway_load.ts";
import { type ServiceProcess, sleep, spawnServe } from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runDiskFull}. */
export interface DiskFullOptions {
  /** Size of the tmpfs (MiB). */
  sizeMiB: number;
  /** How long the disk stays full under load (ms). */
  fullMs: number;
}

async function run(command: string, args: string[]): Promise<{ ok: boolean; text: string }> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output()
    .catch((e) => ({
      success: false,
      stdout: new Uint8Array(),
      stderr: new TextEncoder().encode(String(e)),
    }));
  return { ok: out.success, text: new TextDecoder().decode(out.stderr).trim() };
}

/** Fills the file system holding `dir` (a filler file written until ENOSPC). */
async function fill(dir: string): Promise<void> {
  const file = await Deno.open(`${dir}/filler`, { create: true, write: true });
  const block = new Uint8Array(64 * 1024);
  try {
    for (;;) await file.write(block);
  } catch {
    // full
  }
  for (let size = 4096; size >= 1; size = Math.floor(size / 2)) {
    try {
      for (;;) await file.write(new Uint8Array(size));
    } catch {
      // full at this size
    }
  }
  file.close();
}

/** Runs the scenario; `undefined` counts when the mount is refused (the result says so). */
export async function runDiskFull(options: DiskFullOptions): Promise<ScenarioResult> {
  const result = emptyResult("6 disk full (tmpfs)");
  const mountPoint = await Deno.makeTempDir({ prefix: "switchyard-chaos-disk-" });
  const mounted = await run("mount", ["-t", "tmpfs", "-o", `size=${options.sizeMiB}m`, "tmpfs", mountPoint]);
  if (!mounted.ok) {
    check(
      result,
      "a small tmpfs could be mounted (scenario skipped: this machine refuses the mount)",
      true,
      mounted.text,
    );
    result.notes.push(`mount refused: ${mounted.text}`);
    await Deno.remove(mountPoint, { recursive: true }).catch(() => {});
    return result;
  }
  const started: ServiceProcess[] = [];
  const h = await startHarness({ GATEWAY_DATABASE_URL: `file:${mountPoint}/gateway.db` });
  try {
    await Deno.mkdir(`${mountPoint}/auth`);
    const fixture = await prepareAuth(`${mountPoint}/auth`);
    const auth = await spawnAuth(fixture);
    started.push(auth);
    const gateway = await spawnServe(GATEWAY_ENTRY, {
      ...h.env,
      LOG_LEVEL: "error",
      GATEWAY_USAGE_FLUSH_MS: "100",
    });
    started.push(gateway);
    await sleep(400);
    // Tokens and codes to use while the disk is full.
    const codes = await authorizeCodes(fixture, auth.url, 40);
    const chains: string[] = [];
    for (const code of codes.splice(0, 8)) {
      chains.push((await exchangeCode(fixture, auth.url, code)).body!.refresh_token!);
    }

    await fill(mountPoint);
    result.faults++;
    const filledAt = performance.now();
    const failedCodes: string[] = [];
    const failedRefresh: { chain: number; token: string }[] = [];
    const delivered: string[] = [];
    let unclean = 0;
    const classify = (a: TokenAnswer) => {
      result.requests++;
      if (a.status === 200) result.answered++;
      else if (a.status === 503) result.failedCleanly++;
      else unclean++;
    };
    let gatewayFailures = 0;
    const until = performance.now() + options.fullMs;
    while (performance.now() < until) {
      const code = codes.pop();
      if (code) {
        const a = await exchangeCode(fixture, auth.url, code);
        classify(a);
        if (a.status !== 200) failedCodes.push(code);
      }
      const i = result.requests % chains.length;
      const r = await refresh(fixture, auth.url, chains[i]);
      classify(r);
      if (r.status === 200 && r.body?.refresh_token) chains[i] = r.body.refresh_token;
      else failedRefresh.push({ chain: i, token: chains[i] });
      const g = await sendMessages(gateway.url, h.key, "openai/fx-text", result.requests % 2 === 0);
      result.requests++;
      if (g.kind === "complete") {
        result.answered++;
        delivered.push(g.requestId!);
      } else gatewayFailures++;
    }
    await Deno.remove(`${mountPoint}/filler`);
    // Recovered: the auth service rotates a token again.
    let recovered = false;
    for (let i = 0; i < 200 && !recovered; i++) {
      const r = await refresh(fixture, auth.url, chains[0]);
      if (r.status === 200 && r.body?.refresh_token) {
        chains[0] = r.body.refresh_token;
        recovered = true;
      } else await sleep(50);
    }
    result.recoverMs.push(performance.now() - filledAt - options.fullMs);
    // No half-written grant: a code or refresh token refused for lack of space works once space returns.
    let halfWritten = 0;
    for (const code of failedCodes) {
      if ((await exchangeCode(fixture, auth.url, code)).status !== 200) halfWritten++;
    }
    const retried = new Set<number>();
    for (const { chain, token } of failedRefresh.reverse()) {
      if (retried.has(chain) || chain === 0) continue; // the chain's latest refused token only
      retried.add(chain);
      if (token !== chains[chain]) continue;
      if ((await refresh(fixture, auth.url, token)).status !== 200) halfWritten++;
    }
    result.lost = halfWritten;
    // The ledger catches up: every delivered answer is recorded once the gateway drains.
    await gateway.stop("SIGTERM");
    await auth.stop("SIGTERM");
    const ledgerRetries = gateway.lines.filter((l) =>
      l.includes("usage ledger write failed; retrying")
    ).length;
    started.length = 0;
    const rows = await h.db.selectFrom("gateway_usage").select("request_id").execute();
    const recorded = new Set(rows.map((r) => r.request_id));
    const missing = delivered.filter((id) => !recorded.has(id)).length;
    result.duplicated = rows.length - recorded.size;
    result.lost += missing;
    const authIntegrity = await integrityCheck(fixture.dbPath);
    const gatewayRows = (await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(h.db)).rows;
    const gatewayIntegrity = gatewayRows.map((r) => Object.values(r)[0]).join("; ");
    check(
      result,
      "the auth service answers writes it cannot make with 503, never another error",
      unclean === 0,
      `${result.failedCleanly} 503, ${unclean} other`,
    );
    check(
      result,
      "the disk was really full for the auth service (some writes refused)",
      result.failedCleanly > 0,
    );
    check(
      result,
      "no half-written grant: refused codes and refresh tokens work once space returns",
      halfWritten === 0,
      `${failedCodes.length} codes, ${retried.size} chains retried`,
    );
    check(
      result,
      "the gateway keeps serving while its disk is full",
      gatewayFailures === 0,
      `${delivered.length} answers, ${gatewayFailures} failures`,
    );
    check(
      result,
      "the ledger's writes failed while the disk was full (and were retried)",
      ledgerRetries > 0,
      `${ledgerRetries} failures logged`,
    );
    check(
      result,
      "the ledger catches up: every delivered answer recorded once",
      missing === 0 && result.duplicated === 0,
      `${missing} missing, ${result.duplicated} twice`,
    );
    check(result, "the auth database is not corrupted", authIntegrity === "ok", authIntegrity);
    check(result, "the auth service recovers without a restart", recovered);
    check(result, "the gateway database is not corrupted", gatewayIntegrity === "ok", gatewayIntegrity);
    result.notes.push(`tmpfs of ${options.sizeMiB} MiB`);
    return result;
  } finally {
    await Promise.all(started.map((p) => p.stop("SIGKILL")));
    await h.close();
    await run("umount", ["-l", mountPoint]);
    await Deno.remove(mountPoint, { recursive: true }).catch(() => {});
  }
}
