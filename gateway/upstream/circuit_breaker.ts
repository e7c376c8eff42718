/**
 * Per-deployment circuit breakers. A deployment is one provider, one upstream model and one credential
 * (see {@link deploymentKey}): one model failing, or one key being throttled, leaves the provider's other
 * models and keys alone. After `failures` consecutive upstream faults (errors marked `upstreamFault`:
 * connect errors, timeouts before the headers, 5xx — never a 4xx, a 429, or a refusal of the gateway's own
 * such as an answer over the size cap) its circuit opens for `cooldownMs`: requests skip it at once (to
 * their fallback, or a 529 without waiting on a dead host). After the cool-down one request is let through
 * as a probe (half-open); its success closes the circuit, its failure opens it for another cool-down.
 */
import { parseTarget } from "../target.ts";

/** Breaker settings. */
export interface BreakerPolicy {
  /** Consecutive failures that open the circuit. */
  failures: number;
  /** How long an open circuit refuses calls before one probe. */
  cooldownMs: number;
}

/** A circuit as the admin console shows it. */
export interface BreakerState {
  state: "closed" | "open" | "half-open";
  /** Consecutive failures so far. */
  failures: number;
  /** Milliseconds until an open circuit lets a probe through. */
  retryInMs: number;
}

/**
 * The circuit name of a deployment: `provider/model`, plus `#credential` when the provider names the
 * credential it calls with (a key's environment name, never the key). `#` cannot occur in a model name.
 */
export function deploymentKey(provider: string, model: string, credential = ""): string {
  return credential ? `${provider}/${model}#${credential}` : `${provider}/${model}`;
}

/** The provider part of a deployment key. */
function providerOf(key: string): string {
  return parseTarget(key)?.provider ?? key;
}

const SEVERITY = { closed: 0, "half-open": 1, open: 2 } as const;

interface State {
  failures: number;
  openUntil: number;
  probing: boolean;
}

/** The circuits of every deployment, by {@link deploymentKey}. */
export class CircuitBreakers {
  #policy: BreakerPolicy;
  #now: () => number;
  #states = new Map<string, State>();

  /** `now` is the clock (milliseconds). */
  constructor(policy: BreakerPolicy, now: () => number = Date.now) {
    this.#policy = policy;
    this.#now = now;
  }

  #state(name: string): State {
    let state = this.#states.get(name);
    if (!state) this.#states.set(name, state = { failures: 0, openUntil: 0, probing: false });
    return state;
  }

  /** True when a call to `name` may go ahead (closed, or the half-open probe). */
  allow(name: string): boolean {
    const state = this.#states.get(name);
    if (!state || state.openUntil === 0) return true;
    if (this.#now() < state.openUntil || state.probing) return false;
    state.probing = true;
    return true;
  }

  /** Milliseconds until `name` may be probed again (0 when it may be called). */
  retryInMs(name: string): number {
    const state = this.#states.get(name);
    return state ? Math.max(0, state.openUntil - this.#now()) : 0;
  }

  /** The upstream answered (any status that is not a failure). */
  success(name: string): void {
    const state = this.#states.get(name);
    if (!state) return;
    state.failures = 0;
    state.openUntil = 0;
    state.probing = false;
  }

  /** The upstream failed. */
  failure(name: string): void {
    const state = this.#state(name);
    state.failures++;
    if (state.probing || state.failures >= this.#policy.failures) {
      state.openUntil = this.#now() + this.#policy.cooldownMs;
    }
    state.probing = false;
  }

  /** The circuit of `name` right now (read-only). */
  stateOf(name: string): BreakerState {
    const state = this.#states.get(name);
    if (!state) return { state: "closed", failures: 0, retryInMs: 0 };
    const retryInMs = Math.max(0, state.openUntil - this.#now());
    const open = state.openUntil !== 0 && (retryInMs > 0 || !state.probing);
    return {
      state: state.openUntil === 0 ? "closed" : state.probing ? "half-open" : open ? "open" : "closed",
      failures: state.failures,
      retryInMs,
    };
  }

  /**
   * A provider's circuits summed up for the console: the worst state among its deployments, the most
   * consecutive failures, the soonest probe of an open one, and which deployments are not closed.
   */
  stateOfProvider(provider: string): BreakerState & { deployments: string[] } {
    let worst: BreakerState = { state: "closed", failures: 0, retryInMs: 0 };
    const deployments: string[] = [];
    for (const key of this.#states.keys()) {
      if (providerOf(key) !== provider) continue;
      const state = this.stateOf(key);
      if (state.state !== "closed") deployments.push(key);
      if (
        SEVERITY[state.state] > SEVERITY[worst.state] ||
        (state.state === worst.state && state.failures > worst.failures)
      ) worst = state;
    }
    return { ...worst, deployments };
  }

  /** A call ended without telling anything about the upstream (the client left): free the probe slot. */
  release(name: string): void {
    const state = this.#states.get(name);
    if (state) state.probing = false;
  }
}
