/**
 * The counters behind per-key limits, as one contract with two stores: in-process (this file; one gateway
 * instance) and Redis (redis_counters.ts; shared by every instance). Both keep the same state per key:
 * - a request window and a token window of 60 s, each opened by the first request after the last one
 *   closed (a TTL'd counter), so `reset` is when that window closes;
 * - the tickets of requests in flight, each with a lease (a crashed instance's tickets expire);
 * - the spend of the current budget period in micro-USD (reserved estimates plus settled corrections).
 * `admit` checks every limit and, only when all pass, counts the request in one atomic step.
 */
import type { KeyLimits } from "./policy.ts";

/** Length of the request and token windows. */
export const WINDOW_MS = 60_000;

/** The limit kinds, in the order they are checked (the first that binds is reported). */
export type LimitKind = "requests" | "tokens" | "concurrency" | "budget";

/** One admission. */
export interface AdmitRequest {
  keyId: string;
  limits: Readonly<KeyLimits>;
  /** Tokens reserved now (the input estimate; output is added when the request settles). */
  tokens: number;
  /** Micro-USD reserved now (a worst-case estimate, corrected when the request settles). */
  costMicros: number;
  /** Identifies the request until it settles. */
  ticket: string;
  /** Names the budget period (`day:2025-01-31`, `month:2025-01`). */
  period: string;
  /** Milliseconds until the budget period's counter may be forgotten. */
  periodTtlMs: number;
  /** Longest a ticket is held if its request never settles. */
  leaseMs: number;
}

/** A window's state: what was used in it and the milliseconds until it closes. */
export interface WindowState {
  used: number;
  resetMs: number;
}

/** What `admit` saw (after counting, when admitted). */
export interface AdmitResult {
  ok: boolean;
  /** The first limit that binds, when refused. */
  failed?: LimitKind;
  requests: WindowState;
  tokens: WindowState;
  inFlight: number;
  spentMicros: number;
}

/** The end of one admitted request. */
export interface SettleRequest {
  keyId: string;
  ticket: string;
  /** Actual tokens minus the reserved ones. */
  tokensDelta: number;
  /** Actual micro-USD minus the reserved ones. */
  costMicrosDelta: number;
  period: string;
  periodTtlMs: number;
}

/** Current usage of a key. */
export interface UsageSnapshot {
  requests: WindowState;
  tokens: WindowState;
  inFlight: number;
  spentMicros: number;
}

/** A store of limit counters. */
export interface LimitCounters {
  /** Checks every limit of the key and counts the request when all pass. */
  admit(request: AdmitRequest): Promise<AdmitResult>;
  /** Releases the ticket and corrects the reserved tokens and spend. */
  settle(request: SettleRequest): Promise<void>;
  /** The key's current usage. */
  snapshot(keyId: string, period: string): Promise<UsageSnapshot>;
  /**
   * Sets the spend of `period` to `micros` unless a counter for it exists already (the store's own count
   * wins): how a restarted instance, or a Redis that lost its data, picks the spend up from the ledger.
   */
  seedSpend(keyId: string, period: string, micros: number, periodTtlMs: number): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
  /**
   * {@link admit} answered at once, for a store that needs no round trip (in-process): the enforcer's hot path
   * then takes no promise. Same state, same result.
   */
  admitNow?(request: AdmitRequest): AdmitResult;
  /** {@link settle} done at once, for a store that needs no round trip (in-process). */
  settleNow?(request: SettleRequest): void;
  /** The store's clock in epoch ms, when it has its own (Redis: shared by every instance). */
  now?(): number;
  /**
   * How many connections the store has opened so far, when it is remote: each new one may meet a server that
   * restarted empty, so spend seeded under an earlier connection is seeded again.
   */
  connection?(): number;
}

/** The first limit that `state` would exceed by one more request, if any. */
export function bindingLimit(
  limits: Readonly<KeyLimits>,
  state: { requests: number; tokens: number; inFlight: number; spentMicros: number },
): LimitKind | undefined {
  if (limits.rpm !== undefined && state.requests >= limits.rpm) return "requests";
  if (limits.tpm !== undefined && state.tokens >= limits.tpm) return "tokens";
  if (limits.maxConcurrency !== undefined && state.inFlight >= limits.maxConcurrency) return "concurrency";
  if (limits.budgetUsd !== undefined && state.spentMicros >= limits.budgetUsd * 1e6) return "budget";
  return undefined;
}

interface Window {
  used: number;
  endsAt: number;
}

interface KeyState {
  requests: Window;
  tokens: Window;
  /** Ticket → lease expiry (epoch ms). */
  tickets: Map<string, number>;
  /** No ticket's lease ends before this (a lower bound): expired tickets are looked for only from then on. */
  sweepAt: number;
  spend: Map<string, Window>;
}

/** In-process counters: one instance's view (use Redis when several instances serve the same keys). */
export class MemoryCounters implements LimitCounters {
  #keys = new Map<string, KeyState>();
  #now: () => number;

  /** `now` is the clock (tests pass their own). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #state(keyId: string): KeyState {
    let state = this.#keys.get(keyId);
    if (!state) {
      state = {
        requests: { used: 0, endsAt: 0 },
        tokens: { used: 0, endsAt: 0 },
        tickets: new Map(),
        sweepAt: Infinity,
        spend: new Map(),
      };
      this.#keys.set(keyId, state);
    }
    return state;
  }

  #live(window: Window, now: number): Window {
    if (window.endsAt <= now) {
      window.used = 0;
      window.endsAt = 0;
    }
    return window;
  }

  #add(window: Window, amount: number, now: number, ttlMs: number): void {
    this.#live(window, now);
    if (window.endsAt === 0) {
      if (amount <= 0) return;
      window.endsAt = now + ttlMs;
    }
    window.used += amount;
  }

  /**
   * Drops the tickets whose lease has ended. Leases are long (15 minutes) and settled requests remove their
   * own, so the tickets are walked only once one may have expired, not on every request.
   */
  #sweep(state: KeyState, now: number): void {
    if (now < state.sweepAt) return;
    let next = Infinity;
    for (const [ticket, expires] of state.tickets) {
      if (expires <= now) state.tickets.delete(ticket);
      else if (expires < next) next = expires;
    }
    state.sweepAt = next;
  }

  #window(w: Window, now: number): WindowState {
    this.#live(w, now);
    return { used: w.used, resetMs: w.endsAt ? w.endsAt - now : WINDOW_MS };
  }

  #spent(state: KeyState, period: string, now: number): number {
    const spend = state.spend.get(period);
    return spend && spend.endsAt > now ? spend.used : 0;
  }

  #view(state: KeyState, period: string, now: number): UsageSnapshot {
    this.#sweep(state, now);
    return {
      requests: this.#window(state.requests, now),
      tokens: this.#window(state.tokens, now),
      inFlight: state.tickets.size,
      spentMicros: this.#spent(state, period, now),
    };
  }

  admit(request: AdmitRequest): Promise<AdmitResult> {
    return Promise.resolve(this.admitNow(request));
  }

  admitNow(request: AdmitRequest): AdmitResult {
    const now = this.#now();
    const state = this.#state(request.keyId);
    const before = this.#view(state, request.period, now);
    const failed = bindingLimit(request.limits, {
      requests: before.requests.used,
      tokens: before.tokens.used,
      inFlight: before.inFlight,
      spentMicros: before.spentMicros,
    });
    if (failed) return { ok: false, failed, ...before };
    this.#add(state.requests, 1, now, WINDOW_MS);
    this.#add(state.tokens, request.tokens, now, WINDOW_MS);
    const expires = now + request.leaseMs;
    state.tickets.set(request.ticket, expires);
    if (expires < state.sweepAt) state.sweepAt = expires;
    let spend = state.spend.get(request.period);
    if (!spend) state.spend.set(request.period, spend = { used: 0, endsAt: 0 });
    this.#add(spend, request.costMicros, now, request.periodTtlMs);
    // The view after counting (the sweep is done and nothing expired since: `now` is the same).
    return {
      ok: true,
      requests: this.#window(state.requests, now),
      tokens: this.#window(state.tokens, now),
      inFlight: state.tickets.size,
      spentMicros: spend.endsAt > now ? spend.used : 0,
    };
  }

  settle(request: SettleRequest): Promise<void> {
    this.settleNow(request);
    return Promise.resolve();
  }

  settleNow(request: SettleRequest): void {
    const now = this.#now();
    const state = this.#state(request.keyId);
    state.tickets.delete(request.ticket);
    this.#add(state.tokens, request.tokensDelta, now, WINDOW_MS);
    let spend = state.spend.get(request.period);
    if (!spend) state.spend.set(request.period, spend = { used: 0, endsAt: 0 });
    this.#add(spend, request.costMicrosDelta, now, request.periodTtlMs);
  }

  snapshot(keyId: string, period: string): Promise<UsageSnapshot> {
    return Promise.resolve(this.#view(this.#state(keyId), period, this.#now()));
  }

  seedSpend(keyId: string, period: string, micros: number, periodTtlMs: number): Promise<void> {
    const now = this.#now();
    const state = this.#state(keyId);
    const spend = state.spend.get(period);
    if (!spend || spend.endsAt <= now) {
      state.spend.set(period, { used: Math.max(0, Math.round(micros)), endsAt: now + periodTtlMs });
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
