/**
 * Issue 30: the short versions of the gateway chaos scenarios (3, 4, 5) and of the soak (7), as CI runs
 * them: the same code as `deno task chaos` and `deno task soak` with small counts. The short soak checks
 * answers, RSS within 50 % and flat descriptors; only the full soak measures p99 drift, which a few seconds
 * on a shared machine cannot.
 */
import { runGatewayKill } from "./gateway_kill.ts";
import { runRedisOutage } from "./redis_outage.ts";
import { runSoak } from "./soak.ts";
import { runUpstreamFaults } from "./upstream_faults.ts";
import { E2E, holds } from "./short_run.ts";

Deno.test(
  "chaos 3: a SIGKILLed or SIGTERMed gateway keeps its ledger and budgets whole",
  E2E,
  () =>
    holds(() =>
      runGatewayKill({ faults: 2, clients: 6, minGapMs: 250, maxGapMs: 600, flushMs: 200, seed: 3 })
    ),
);

Deno.test(
  "chaos 4: Redis restarted empty keeps the failure policies and rebuilds budgets",
  E2E,
  () => holds(() => runRedisOutage({ outages: 1, outageMs: 800, clients: 4, timeoutMs: 250 })),
);

Deno.test(
  "chaos 5: misbehaving upstreams end in answers or clean errors and leak nothing",
  E2E,
  () => holds(() => runUpstreamFaults({ requestsPerFault: 2, clients: 7 })),
);

Deno.test(
  "chaos 7: a short mixed soak answers everything with flat descriptors",
  E2E,
  () => holds(() => runSoak({ windows: 3, windowMs: 2000, rssGrowth: 0.5, p99Drift: Infinity })),
);
