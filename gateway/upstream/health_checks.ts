/**
 * Active health checks of deployments (`health_checks:` in GATEWAY_CONFIG for every deployment of every
 * group, `targets[].health_check` per deployment, `false` to turn one off): every `interval_ms` each
 * deployment is probed — `request`, a one-token Messages request through its provider, or `models`, a GET
 * of the provider's model list — with `timeout_ms`. After `unhealthy_after` consecutive failures the
 * deployment is taken out of every order (deployments.ts, outcome `unhealthy`); one passing check brings it
 * back. A failure is what says the upstream is down: no answer in time, a connection error, a 5xx or an
 * overload (503 / 529); a 429 says it is alive (its cooldown handles it), and so does a 4xx about the probe.
 */
import { GatewayError } from "../errors.ts";
import type { DeploymentPool, HealthCheckSpec } from "./deployments.ts";

/** A deployment's settled check settings. */
export type HealthPlan = Required<HealthCheckSpec>;

/** Defaults of a check. */
export const HEALTH_DEFAULTS: HealthPlan = {
  interval_ms: 30_000,
  timeout_ms: 5_000,
  probe: "request",
  unhealthy_after: 2,
};

/** Checks one deployment (`provider/model`) once: resolves when it answered, rejects otherwise. */
export type HealthProbe = (target: string, probe: HealthPlan["probe"], signal: AbortSignal) => Promise<void>;

/** True when a probe's failure says the upstream is unavailable. */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return true;
  if (error.type === "rate_limit_error") return false;
  return error.upstreamFault || error.status >= 500;
}

/** The settled plan of each checked deployment. */
export function healthPlans(
  pool: DeploymentPool,
  global: HealthCheckSpec | undefined,
): Array<{ target: string; plan: HealthPlan }> {
  const plans: Array<{ target: string; plan: HealthPlan }> = [];
  for (const spec of pool.deployments()) {
    if (spec.health_check === false || (!global && !spec.health_check)) continue;
    plans.push({ target: spec.target, plan: { ...HEALTH_DEFAULTS, ...global, ...spec.health_check } });
  }
  return plans;
}

/** What a check loop reports (the gateway logs it). */
export type HealthReport = (target: string, healthy: boolean, error?: unknown) => void;

/** Runs the checks of a pool's deployments until closed. */
export class HealthChecks {
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;
  #aborts = new Set<AbortController>();

  /** Starts one loop per plan: the first check after one interval. */
  constructor(
    pool: DeploymentPool,
    plans: ReadonlyArray<{ target: string; plan: HealthPlan }>,
    probe: HealthProbe,
    report: HealthReport = () => {},
  ) {
    for (const { target, plan } of plans) this.#loop(pool, target, plan, probe, report);
  }

  #loop(pool: DeploymentPool, target: string, plan: HealthPlan, probe: HealthProbe, report: HealthReport) {
    let failures = 0;
    let healthy = true;
    // Other instances keep a failing deployment out this long without hearing again (Redis).
    const holdMs = 2 * plan.interval_ms + plan.timeout_ms;
    const check = async () => {
      const abort = new AbortController();
      this.#aborts.add(abort);
      const timer = setTimeout(() => abort.abort(new Error("health check timed out")), plan.timeout_ms);
      let outage: unknown;
      try {
        await probe(target, plan.probe, abort.signal);
      } catch (error) {
        outage = abort.signal.aborted || isOutage(error) ? error : undefined;
      } finally {
        clearTimeout(timer);
        this.#aborts.delete(abort);
      }
      if (this.#closed) return;
      if (outage === undefined) {
        failures = 0;
        if (!healthy) {
          healthy = true;
          pool.setHealth(target, true, 0);
          report(target, true);
        }
      } else if (++failures >= plan.unhealthy_after) {
        pool.setHealth(target, false, holdMs);
        if (healthy) report(target, false, outage);
        healthy = false;
      }
      schedule();
    };
    const schedule = () => {
      if (this.#closed) return;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        void check();
      }, plan.interval_ms);
      Deno.unrefTimer(Number(timer));
      this.#timers.add(timer);
    };
    schedule();
  }

  /** Stops every loop (and aborts checks under way). */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    for (const abort of this.#aborts) abort.abort();
    this.#timers.clear();
  }
}
