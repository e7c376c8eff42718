/**
 * Fallbacks and retries: a request goes to its route, then — on a failure that happened before any answer
 * (connect error, no headers in time, 429, 5xx; never a 4xx, never after a stream's headers) — to the next
 * target of its fallback chain (`fallbacks:` in GATEWAY_CONFIG, keyed by the model name asked for, by
 * `provider/model`, or by provider). Retrying the same deployment waits a jittered exponential backoff, or its
 * `retry-after` when longer; moving to another one does not wait. No attempt starts past the total
 * deadline. Deployments (provider, model, credential) whose circuit is open (circuit_breaker.ts) are skipped
 * without a call; only upstream faults (`upstreamFault`) count toward a circuit. Each attempt is
 * recorded for the access log and the `gw-upstream` / `gw-attempts` response headers.
 */
import { type CircuitBreakers, deploymentKey } from "./circuit_breaker.ts";
import { GatewayError } from "../errors.ts";
import type { Provider, ProviderCall } from "../providers/contract.ts";
import type { ModelRouter } from "../routing.ts";
import type { DeploymentPool, Ordered, TokenCharge } from "./deployments.ts";

/** Time budget and backoff of one request's attempts. */
export interface RetryPolicy {
  /** No attempt starts later than this after the first. */
  deadlineMs: number;
  /** Base of the backoff before retrying the same deployment (doubled per retry, jittered 50–100 %). */
  backoffMs: number;
  /** Longest single wait (backoff or `retry-after`). */
  maxBackoffMs: number;
}

/** One attempt, as the access log records it. */
export interface AttemptRecord {
  /** `provider/model`. */
  target: string;
  /**
   * `ok`, `error` (see `error_type`), or skipped without a call: `circuit_open`, or a deployment of a group
   * (deployments.ts) `cooling_down` after a 429 / 529, at its `rpm_cap` / `tpm_cap`, or `unhealthy` (its
   * health checks fail).
   */
  outcome: "ok" | "error" | "circuit_open" | "cooling_down" | "rpm_cap" | "tpm_cap" | "unhealthy";
  /** The Anthropic error type of a failed attempt. */
  error_type?: string;
  /** Milliseconds the attempt took. */
  duration_ms?: number;
}

/** The outcome of all attempts of one request. */
/**
 * Told of each upstream call a request makes (tracing: gateway/tracing.ts `RequestSpans`), and of its failure;
 * an object rather than a callback, so a traced request needs no closure of its own.
 */
export interface AttemptObserver {
  /** Call `index` (1-based) to `target` (`provider/model`) starts. */
  attempt(target: string, index: number): { fail(errorType: string): void };
}

export type AttemptsResult<T> =
  | {
    ok: true;
    value: T;
    target: string;
    attempts: AttemptRecord[];
    /** The answering deployment's token count, to correct with the usage (a deployment with `tpm`). */
    charge?: TokenCharge;
  }
  | { ok: false; error: unknown; attempts: AttemptRecord[] };

interface Target {
  provider: Provider;
  upstreamModel: string;
  label: string;
  /** Its circuit's name. */
  deployment: string;
}

/** Most deployments of one provider whose target objects are kept. */
const MAX_CACHED_TARGETS = 1024;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** True when the request was aborted because its client went away (not by one of our deadlines). */
function clientLeft(call: ProviderCall): boolean {
  return call.abort.signal.aborted && !(call.abort.signal.reason instanceof GatewayError);
}

/** The attempt call for a fallback target: its own model, and its own abort linked to the request's. */
function callFor(call: ProviderCall, target: Target): ProviderCall {
  const abort = new AbortController();
  call.abort.signal.addEventListener("abort", () => abort.abort(), { once: true });
  return { ...call, upstreamModel: target.upstreamModel, abort };
}

/** Runs requests through their fallback chains. */
export class UpstreamAttempts {
  #router: ModelRouter;
  #fallbacks: Readonly<Record<string, readonly string[]>>;
  #breakers: CircuitBreakers;
  #policy: RetryPolicy;
  #random: () => number;
  #credentialOf: (provider: string) => string;
  #resolved = new Map<string, Target>();
  #targets = new Map<Provider, Map<string, Target>>();
  #pool: DeploymentPool | undefined;

  /**
   * `random` jitters the backoff (tests pass their own); `credentialOf` names the credential a provider
   * calls with (an environment key's name, never its value), part of each deployment's circuit.
   */
  constructor(
    router: ModelRouter,
    fallbacks: Readonly<Record<string, readonly string[]>>,
    breakers: CircuitBreakers,
    policy: RetryPolicy,
    random: () => number = Math.random,
    credentialOf: (provider: string) => string = () => "",
    pool?: DeploymentPool,
  ) {
    this.#pool = pool;
    this.#router = router;
    this.#fallbacks = fallbacks;
    this.#breakers = breakers;
    this.#policy = policy;
    this.#random = random;
    this.#credentialOf = credentialOf;
  }

  #targetOf(provider: Provider, upstreamModel: string): Target {
    // One object per deployment, built once: the hot path neither concatenates labels nor allocates.
    let byModel = this.#targets.get(provider);
    if (!byModel) this.#targets.set(provider, byModel = new Map());
    let target = byModel.get(upstreamModel);
    if (!target) {
      target = {
        provider,
        upstreamModel,
        label: `${provider.name}/${upstreamModel}`,
        deployment: deploymentKey(provider.name, upstreamModel, this.#credentialOf(provider.name)),
      };
      // Bounded: a client can name any model of a provider, so the cache stops growing at a limit.
      if (byModel.size < MAX_CACHED_TARGETS) byModel.set(upstreamModel, target);
    }
    return target;
  }

  #target(name: string): Target {
    let target = this.#resolved.get(name);
    if (!target) {
      const route = this.#router.resolve(name);
      target = this.#targetOf(route.provider, route.upstreamModel);
      this.#resolved.set(name, target);
    }
    return target;
  }

  /**
   * The chain of a request: its route (or its group's usable deployments in the group's order), then the
   * first matching fallback list. Deployments left out are recorded in `skipped`.
   */
  #chain(call: ProviderCall, provider: Provider, skipped: AttemptRecord[], ordered?: Ordered): Target[] {
    const table = this.#fallbacks;
    if (ordered) {
      let soonest = Infinity;
      for (const left of ordered.skipped) {
        skipped.push({ target: left.target, outcome: left.reason });
        soonest = Math.min(soonest, left.retryInMs);
      }
      const chain = ordered.targets.map((name) => this.#target(name));
      if (Object.hasOwn(table, call.requestedModel)) {
        chain.push(...table[call.requestedModel].map((name) => this.#target(name)));
      }
      if (chain.length === 0) throw allCoolingDown(call.requestedModel, soonest);
      return chain;
    }
    const first = this.#targetOf(provider, call.upstreamModel);
    // No array of candidate keys per request: most requests have no fallback list at all.
    const key = Object.hasOwn(table, call.requestedModel)
      ? call.requestedModel
      : Object.hasOwn(table, first.label)
      ? first.label
      : Object.hasOwn(table, provider.name)
      ? provider.name
      : undefined;
    return key === undefined ? [first] : [first, ...table[key].map((name) => this.#target(name))];
  }

  #wait(failures: number, error: unknown): number {
    const backoff = this.#policy.backoffMs * 2 ** (failures - 1) * (0.5 + this.#random() / 2);
    const after = error instanceof GatewayError && error.retryAfter ? Number(error.retryAfter) * 1000 : 0;
    return Math.min(this.#policy.maxBackoffMs, Math.max(backoff, after));
  }

  /**
   * Calls `attempt` on each target in turn until one answers or a failure may not be retried; `observe`
   * (tracing) is told of each call made, and of its failure.
   */
  run<T>(
    call: ProviderCall,
    provider: Provider,
    attempt: (provider: Provider, call: ProviderCall) => Promise<T>,
    observe?: AttemptObserver,
  ): Promise<AttemptsResult<T>> {
    // Most requests have one target (no group, no fallback list) whose circuit is closed: one call, in an
    // async function of few locals (the chain's loop kept ≈ 1 KB per request alive across its await).
    if (!this.#pool?.has(call.requestedModel)) {
      const target = this.#targetOf(provider, call.upstreamModel);
      const table = this.#fallbacks;
      if (
        !Object.hasOwn(table, call.requestedModel) && !Object.hasOwn(table, target.label) &&
        !Object.hasOwn(table, provider.name) && !clientLeft(call) && this.#breakers.allow(target.deployment)
      ) return this.#runOne(target, call, attempt, observe);
    }
    return this.#runChain(call, provider, attempt, observe);
  }

  /** The one attempt of a request whose chain is its route alone. */
  async #runOne<T>(
    target: Target,
    call: ProviderCall,
    attempt: (provider: Provider, call: ProviderCall) => Promise<T>,
    observe?: AttemptObserver,
  ): Promise<AttemptsResult<T>> {
    const at = Date.now();
    const observed = observe?.attempt(target.label, 1);
    try {
      const value = await attempt(target.provider, call);
      this.#breakers.success(target.deployment);
      const attempts: AttemptRecord[] = [{
        target: target.label,
        outcome: "ok",
        duration_ms: Date.now() - at,
      }];
      return { ok: true, value, target: target.label, attempts };
    } catch (error) {
      const left = clientLeft(call);
      if (error instanceof GatewayError && error.upstreamFault && !left) {
        this.#breakers.failure(target.deployment);
      } else this.#breakers.release(target.deployment);
      const errorType = error instanceof GatewayError ? error.type : "api_error";
      observed?.fail(errorType);
      const attempts: AttemptRecord[] = [{
        target: target.label,
        outcome: "error",
        error_type: errorType,
        duration_ms: Date.now() - at,
      }];
      return { ok: false, error, attempts };
    }
  }

  /** {@link run} through the whole chain: a group's deployments, fallbacks, retries. */
  async #runChain<T>(
    call: ProviderCall,
    provider: Provider,
    attempt: (provider: Provider, call: ProviderCall) => Promise<T>,
    observe?: AttemptObserver,
  ): Promise<AttemptsResult<T>> {
    const attempts: AttemptRecord[] = [];
    const group = this.#pool?.has(call.requestedModel) ? call.requestedModel : undefined;
    let ordered: Ordered | undefined;
    if (group) {
      const order = this.#pool!.order(group, call.inputTokensEstimate);
      // A promise only when the pool shares its state through Redis: no await on the in-process path.
      ordered = order instanceof Promise ? await order : order;
    }
    let chain: Target[];
    try {
      chain = this.#chain(call, provider, attempts, ordered);
    } catch (error) {
      return { ok: false, error, attempts };
    }
    const started = Date.now();
    let failuresOf: Map<string, number> | undefined; // only once an attempt failed
    let lastError: unknown;
    let calls = 0;
    for (let i = 0; i < chain.length; i++) {
      const target = chain[i];
      // Failures are counted per deployment: a 429 of one model says nothing of another of its provider.
      const name = target.deployment;
      const circuit = target.deployment;
      if (!this.#breakers.allow(circuit)) {
        attempts.push({ target: target.label, outcome: "circuit_open" });
        lastError ??= circuitOpen(target.label, this.#breakers.retryInMs(circuit));
        continue;
      }
      const failures = failuresOf?.get(name) ?? 0;
      if (failures > 0) {
        // Retrying a provider that just failed: give it time (never past the deadline). A retry that cannot
        // start in time is skipped, not the end of the chain: a later target of another provider needs no wait.
        const wait = this.#wait(failures, lastError);
        if (Date.now() + wait - started > this.#policy.deadlineMs) continue;
        await pause(wait, call.abort.signal);
      } else if (i > 0 && Date.now() - started > this.#policy.deadlineMs) break;
      if (clientLeft(call)) break;
      const at = Date.now();
      const observed = observe?.attempt(target.label, ++calls);
      const charge = group ? this.#pool!.chargeFor(group, target.label, call.inputTokensEstimate) : undefined;
      const ticket = group ? this.#pool!.started(group, target.label, call.inputTokensEstimate) : "";
      try {
        const value = await attempt(
          target.provider,
          chain.length === 1 && !group ? call : callFor(call, target),
        );
        if (group) this.#pool!.finished(group, target.label, Date.now() - at, undefined, undefined, ticket);
        this.#breakers.success(circuit);
        attempts.push({ target: target.label, outcome: "ok", duration_ms: Date.now() - at });
        return { ok: true, value, target: target.label, attempts, charge };
      } catch (error) {
        const left = clientLeft(call);
        const retryable = error instanceof GatewayError && error.retryable && !left;
        // Only the upstream's own faults count: a 429 says it is alive, a 4xx, a refusal of the gateway's
        // (an answer over a size cap) or a client that left says nothing about it.
        if (error instanceof GatewayError && error.upstreamFault && !left) this.#breakers.failure(circuit);
        else this.#breakers.release(circuit);
        const errorType = error instanceof GatewayError ? error.type : "api_error";
        if (group) {
          const retryAfter = error instanceof GatewayError && error.retryAfter
            ? Number(error.retryAfter)
            : undefined;
          // A cooldown shared through Redis is written before the next attempt: no instance sends there meanwhile.
          const cooled = this.#pool!.finished(
            group,
            target.label,
            Date.now() - at,
            errorType,
            retryAfter,
            ticket,
          );
          if (cooled) await cooled;
        }
        observed?.fail(errorType);
        attempts.push({
          target: target.label,
          outcome: "error",
          error_type: errorType,
          duration_ms: Date.now() - at,
        });
        lastError = error;
        (failuresOf ??= new Map()).set(name, failures + 1);
        if (!retryable) break;
      }
    }
    return { ok: false, error: lastError, attempts };
  }
}

/** The error of a deployment (`provider/model`) skipped because its circuit is open. */
function circuitOpen(target: string, retryInMs: number): GatewayError {
  return new GatewayError(
    "overloaded_error",
    `upstream ${target} is unavailable after repeated failures; retry in ${Math.ceil(retryInMs / 1000)} s`,
    { retryAfter: String(Math.max(1, Math.ceil(retryInMs / 1000))), retryable: true },
  );
}

/** The error of a group all of whose deployments are cooling down, at their caps or failing health checks. */
function allCoolingDown(model: string, retryInMs: number): GatewayError {
  const seconds = Math.max(1, Math.ceil(retryInMs / 1000));
  return new GatewayError(
    "rate_limit_error",
    `every deployment of model ${JSON.stringify(model)} is rate limited, at its cap or failing its health ` +
      `checks; retry in ${seconds} s`,
    { retryAfter: String(seconds), retryable: true },
  );
}
