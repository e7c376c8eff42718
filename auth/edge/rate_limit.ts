/**
 * A fixed-window rate limiter in memory (per isolate), keyed by client address and route group, plus a
 * failure counter per OAuth client id so that guessing one client's secret from many addresses is limited
 * too. Better Auth's own limiter is off: it trusts `X-Forwarded-For` as sent and counts too late (after
 * the service's own client authentication has answered).
 */

/** One rule: at most `max` requests per `windowSeconds`. */
export interface RateRule {
  /** Requests allowed per window. */
  max: number;
  /** Window length in seconds. */
  windowSeconds: number;
}

/** Outcome of one check. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts hits per key in fixed windows; stale windows are swept as new ones start. */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number; ends: number }>();
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts one hit on `key` under `rule` and says whether it is within the limit. */
  hit(key: string, rule: RateRule): RateDecision {
    const now = this.#now();
    const windowMs = rule.windowSeconds * 1000;
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || now >= window.ends) {
      window = { start: now, count: 0, ends: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    if (window.count <= rule.max) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.ends - now) / 1000)) };
  }

  /** Whether `key` is already over `rule` (without counting a hit). */
  over(key: string, rule: RateRule): RateDecision {
    const now = this.#now();
    const window = this.#windows.get(key);
    if (!window || now >= window.ends || window.count < rule.max) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.ends - now) / 1000)) };
  }

  /** Drops ended windows, at most once every ten seconds, so memory follows the active clients. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 10_000;
    for (const [key, window] of this.#windows) if (now >= window.ends) this.#windows.delete(key);
  }
}
