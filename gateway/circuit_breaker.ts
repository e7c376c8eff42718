/**
 * Per-upstream circuit breakers: after `failures` consecutive failures (connect errors, timeouts before the
 * headers, 5xx — not 4xx, not 429) a provider's circuit opens for `cooldownMs`: requests skip it at once (to
 * their fallback, or a 529 without waiting on a dead host). After the cool-down one request is let through
 * as a probe (half-open); its success closes the circuit, its failure opens it for another cool-down.
 */

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

interface State {
  failures: number;
  openUntil: number;
  probing: boolean;
}

/** The circuits of every provider, by name. */
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

  /** A call ended without telling anything about the upstream (the client left): free the probe slot. */
  release(name: string): void {
    const state = this.#states.get(name);
    if (state) state.probing = false;
  }
}
