/**
 * Issue 30: the short versions of the auth chaos scenarios (1, 2) and of disk full (6, which starts both
 * services), as CI runs them: the same code as `deno task chaos` with small counts. Disk full needs a tmpfs
 * mount: where the machine refuses it, the result says so and only that scenario is skipped.
 */
import { runAuthKill } from "./auth_kill.ts";
import { runAuthShared } from "./auth_shared.ts";
import { runDiskFull } from "./disk_full.ts";
import { E2E, holds } from "./short_run.ts";

Deno.test(
  "chaos 1: SIGKILLed auth loses no delivered token and accepts none twice",
  E2E,
  () => holds(() => runAuthKill({ kills: 2, chains: 16, codes: 40, minGapMs: 250, maxGapMs: 600, seed: 1 })),
);

Deno.test(
  "chaos 2: two auth processes on one database rotate each refresh token exactly once",
  E2E,
  () => holds(() => runAuthShared({ chains: 8, phaseMs: 800, raceRounds: 1, parallel: false })),
);

Deno.test(
  "chaos 6: a full disk gives auth 503s, no half grant, and a ledger that catches up",
  E2E,
  () => holds(() => runDiskFull({ sizeMiB: 8, fullMs: 1500 })),
);
