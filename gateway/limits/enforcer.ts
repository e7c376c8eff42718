/**
 * Enforces a key's policy on the messages route before any upstream call: the models it may use (403
 * `permission_error`), then its limits through the counters (429 `rate_limit_error` with `retry-after`, 402
 * `billing_error` for a spent budget). An admitted request reserves its input-token estimate and a
 * worst-case cost (input estimate + `max_tokens` of output at the target's price), and settles with the
 * upstream's real usage when the response ends, so concurrent requests overspend a budget by at most what
 * is in flight. When the counter store fails, budgets fail closed and rate limits open (configurable),
 * logged once per outage.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import { GatewayError } from "../errors.ts";
import type { Usage } from "../messages/types.ts";
import type { PriceTable } from "../pricing.ts";
import type { AdmitRequest, AdmitResult, LimitCounters, LimitKind, SettleRequest } from "./counters.ts";
import { type BudgetPeriod, type KeyLimits, type KeyPolicy, periodBounds } from "./policy.ts";

/** What happens to keys with limits while the counter store is unreachable. */
export interface FailurePolicy {
  /** rpm, tpm and concurrency: `open` admits without counting, `closed` refuses. */
  rateLimits: "open" | "closed";
  /** Budgets: `closed` refuses, `open` admits without counting. */
  budgets: "open" | "closed";
}

/** An admitted request of a limited key. */
export interface Admission {
  /** The `anthropic-ratelimit-*` headers for the response. */
  readonly headers: Readonly<Record<string, string>>;
  /** Charges what the request really used (undefined: nothing reached the upstream) and frees its slot. */
  settle(usage: Usage | undefined, target: string): void;
  /** True when settling uses the usage (a key with limits); false for a key with none to charge. */
  readonly charges?: boolean;
}

/** Longest a request holds a concurrency slot if it never settles (a crashed instance). */
export const TICKET_LEASE_MS = 15 * 60_000;

/** The budget period's counter name and how long it must be kept. */
export function periodOf(period: BudgetPeriod, now: number): { name: string; ttlMs: number } {
  // The current period's bounds and name, kept until it ends (a date's formatting per request was the hot
  // path's largest cost for a key with a budget).
  let known = currentPeriods.get(period);
  if (!known || now < known.start || now >= known.end) {
    const { start, end } = periodBounds(period, now);
    const iso = new Date(start).toISOString();
    known = { start, end, name: `${period}:${period === "day" ? iso.slice(0, 10) : iso.slice(0, 7)}` };
    currentPeriods.set(period, known);
  }
  return { name: known.name, ttlMs: known.end - now + 86_400_000 };
}

const currentPeriods = new Map<BudgetPeriod, { start: number; end: number; name: string }>();

/** The last two instants formatted by {@link resetInstant}, by whole second. */
const resetCache: Array<{ second: number; text: string }> = [{ second: NaN, text: "" }, {
  second: NaN,
  text: "",
}];

/**
 * `at` (epoch ms) as an RFC 3339 instant to the second (`2026-11-28T02:03:04Z`), as Anthropic writes its
 * resets. Requests and tokens reset at two instants that change once a second: the last two are kept.
 */
export function resetInstant(at: number): string {
  const second = Math.floor(at / 1000);
  for (const entry of resetCache) if (entry.second === second) return entry.text;
  const text = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  resetCache.unshift({ second, text });
  resetCache.pop();
  return text;
}

/** The total tokens of a usage, as rate limits count them. */
export function totalTokens(usage: Usage): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_creation_input_tokens +
    usage.cache_read_input_tokens;
}

const NOTHING: Admission = Object.freeze({ headers: Object.freeze({}), settle: () => {} });

/** `anthropic-ratelimit-*` headers for a key's rpm and tpm. */
function rateLimitHeaders(
  limits: Readonly<KeyLimits>,
  seen: AdmitResult,
  now: number,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (limits.rpm !== undefined) {
    headers["anthropic-ratelimit-requests-limit"] = String(limits.rpm);
    headers["anthropic-ratelimit-requests-remaining"] = String(Math.max(0, limits.rpm - seen.requests.used));
    headers["anthropic-ratelimit-requests-reset"] = resetInstant(now + seen.requests.resetMs);
  }
  if (limits.tpm !== undefined) {
    headers["anthropic-ratelimit-tokens-limit"] = String(limits.tpm);
    headers["anthropic-ratelimit-tokens-remaining"] = String(Math.max(0, limits.tpm - seen.tokens.used));
    headers["anthropic-ratelimit-tokens-reset"] = resetInstant(now + seen.tokens.resetMs);
  }
  return headers;
}

/** How a refusal names who is limited: an API key, or a principal (`user:…`, `repo:…`) as it is. */
function subjectOf(policy: KeyPolicy): string {
  return policy.id.startsWith("key_") ? `API key ${policy.id}` : policy.id;
}

/** The error for the first limit that binds. */
function refusal(
  policy: KeyPolicy,
  failed: LimitKind,
  seen: AdmitResult,
  headers: Record<string, string>,
  now: number,
): GatewayError {
  const limits = policy.limits!;
  const key = subjectOf(policy);
  if (failed === "budget") {
    const { end } = periodBounds(limits.budgetPeriod!, now);
    return new GatewayError(
      "billing_error",
      `${key} has used its budget of $${limits.budgetUsd} per ${limits.budgetPeriod} ($${
        (seen.spentMicros / 1e6).toFixed(4)
      } spent or reserved); it resets at ${new Date(end).toISOString()}`,
      { headers },
    );
  }
  const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));
  const [message, retryAfter] = failed === "requests"
    ? [`${key} is over its limit of ${limits.rpm} requests per minute`, seconds(seen.requests.resetMs)]
    : failed === "tokens"
    ? [`${key} is over its limit of ${limits.tpm} tokens per minute`, seconds(seen.tokens.resetMs)]
    : [`${key} already has ${seen.inFlight} requests in flight, its limit`, "1"];
  return new GatewayError("rate_limit_error", `${message}; retry in ${retryAfter} s`, {
    retryAfter,
    headers,
  });
}

/** Optional parts of a {@link LimitEnforcer}. */
export interface EnforcerOptions {
  /** The clock (tests pass their own). */
  now?: () => number;
  /**
   * USD the key spent since `sinceMs` by the usage ledger: a budget's counter starts from it the first time
   * this instance sees the key in a period, so a restart does not hand a key its budget again.
   */
  spentSince?: (keyId: string, sinceMs: number) => Promise<number>;
}

/** Applies key policies on the messages route. */
export class LimitEnforcer {
  #counters: LimitCounters;
  #prices: PriceTable;
  #logger: Logger;
  #failure: FailurePolicy;
  #now: () => number;
  #spentSince: EnforcerOptions["spentSince"];
  /** Budget counters already started from the ledger, by key and period (a failed load is retried). */
  #seeded = new Map<string, Promise<void>>();
  /** The ids of {@link #seeded} whose load has finished (the synchronous path needs no wait for them). */
  #seededDone = new Set<string>();
  #seededConnection = 0;
  #down = false;

  /** Enforces with `counters`; see {@link EnforcerOptions}. */
  constructor(
    counters: LimitCounters,
    prices: PriceTable,
    logger: Logger,
    failure: FailurePolicy,
    options: EnforcerOptions = {},
  ) {
    this.#counters = counters;
    this.#prices = prices;
    this.#logger = logger;
    this.#failure = failure;
    this.#now = options.now ?? Date.now;
    this.#spentSince = options.spentSince;
  }

  /** Starts the budget's counter for this period from the ledger, once per key and period. */
  #seed(keyId: string, budgetPeriod: BudgetPeriod, period: { name: string; ttlMs: number }, now: number) {
    // A new connection to the store may meet a Redis that restarted empty: seed again (SET NX keeps a
    // counter that survived).
    const connection = this.#counters.connection?.() ?? 0;
    if (connection !== this.#seededConnection) {
      this.#seeded.clear();
      this.#seededDone.clear();
      this.#seededConnection = connection;
    }
    const id = `${keyId}\0${period.name}`;
    let seeding = this.#seeded.get(id);
    if (!seeding) {
      const start = periodBounds(budgetPeriod, now).start;
      const connectionSeeded = connection;
      seeding = this.#spentSince!(keyId, start).then((usd) =>
        this.#counters.seedSpend(keyId, period.name, usd * 1e6, period.ttlMs)
      );
      seeding.then(() => {
        if (this.#seeded.get(id) === seeding && this.#seededConnection === connectionSeeded) {
          this.#seededDone.add(id);
        }
      }, () => this.#seeded.delete(id));
      this.#seeded.set(id, seeding);
    }
    return seeding;
  }

  /** Whether the budget of `keyId` for period `name` was started from the ledger under the current connection. */
  #isSeeded(keyId: string, name: string): boolean {
    if ((this.#counters.connection?.() ?? 0) !== this.#seededConnection) return false;
    return this.#seededDone.has(`${keyId}\0${name}`);
  }

  /** The counter store. */
  get counters(): LimitCounters {
    return this.#counters;
  }

  /** Refuses a model the key may not use (by the name asked for or its `provider/model` target). */
  checkModel(policy: KeyPolicy, requested: string, target: string): void {
    if (!policy.models || policy.models.includes(requested) || policy.models.includes(target)) return;
    throw new GatewayError(
      "permission_error",
      `${subjectOf(policy)} may not use model ${JSON.stringify(requested)}; it may use ${
        policy.models.map((m) => JSON.stringify(m)).join(", ")
      }`,
    );
  }

  #reachable(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#logger.warn("limit counters reachable again");
  }

  #unreachable(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger.error("limit counters unreachable", {
      error,
      rate_limits: this.#failure.rateLimits,
      budgets: this.#failure.budgets,
    });
  }

  /**
   * The admission of a request known without waiting: a key without limits, or a limited key whose counters
   * answer at once (in-process) and whose budget, if any, was already started from the ledger. Undefined:
   * call {@link admit}. Refusals are thrown as by {@link admit}; the same counting, without a promise or an
   * async call per request.
   */
  admitAtOnce(
    policy: KeyPolicy,
    request?: { inputTokens: number; maxTokens: number; target: string },
  ): Admission | undefined {
    const limits = policy.limits;
    if (!limits) return NOTHING;
    const counters = this.#counters;
    if (!request || !counters.admitNow) return undefined;
    const now = counters.now?.() ?? this.#now();
    const period = periodOf(limits.budgetPeriod ?? "month", now);
    if (limits.budgetUsd !== undefined && this.#spentSince && !this.#isSeeded(policy.id, period.name)) {
      return undefined;
    }
    const asked = this.#ask(policy, limits, request, period);
    let seen: AdmitResult;
    try {
      seen = counters.admitNow(asked);
      this.#reachable();
    } catch (error) {
      return this.#unavailable(policy, limits, error);
    }
    return this.#admitted(policy, limits, asked, seen, now);
  }

  /** Admits a request of `policy` to `target` or throws the refusal; a key without limits costs nothing. */
  async admit(
    policy: KeyPolicy,
    request: { inputTokens: number; maxTokens: number; target: string },
  ): Promise<Admission> {
    const limits = policy.limits;
    if (!limits) return NOTHING;
    // The store's clock when it has one (Redis), so every instance names the same budget period.
    const now = this.#counters.now?.() ?? this.#now();
    const period = periodOf(limits.budgetPeriod ?? "month", now);
    const asked = this.#ask(policy, limits, request, period);
    let seen: AdmitResult;
    try {
      if (limits.budgetUsd !== undefined && this.#spentSince) {
        await this.#seed(policy.id, limits.budgetPeriod!, period, now);
      }
      seen = await this.#counters.admit(asked);
      this.#reachable();
    } catch (error) {
      return this.#unavailable(policy, limits, error);
    }
    return this.#admitted(policy, limits, asked, seen, now);
  }

  /** What the counters are asked: the reservation of the input estimate and the worst-case cost. */
  #ask(
    policy: KeyPolicy,
    limits: KeyLimits,
    request: { inputTokens: number; maxTokens: number; target: string },
    period: { name: string; ttlMs: number },
  ): AdmitRequest {
    return {
      keyId: policy.id,
      limits,
      tokens: Math.ceil(request.inputTokens),
      costMicros: Math.ceil(
        this.#prices.cost(request.target, {
          input_tokens: request.inputTokens,
          output_tokens: request.maxTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        }).usd * 1e6,
      ),
      ticket: crypto.randomUUID(),
      period: period.name,
      periodTtlMs: period.ttlMs,
      leaseMs: TICKET_LEASE_MS,
    };
  }

  /** The counters could not be asked: admitted uncounted, or refused, as the failure policy says. */
  #unavailable(policy: KeyPolicy, limits: KeyLimits, error: unknown): Admission {
    this.#unreachable(error);
    const budgetClosed = limits.budgetUsd !== undefined && this.#failure.budgets === "closed";
    const ratesClosed = this.#failure.rateLimits === "closed" &&
      (limits.rpm !== undefined || limits.tpm !== undefined || limits.maxConcurrency !== undefined);
    if (budgetClosed || ratesClosed) {
      throw new GatewayError(
        "api_error",
        `the limits of ${subjectOf(policy)} cannot be checked right now; retry shortly`,
        { status: 503, retryAfter: "1" },
      );
    }
    return NOTHING;
  }

  /** The admission the counters answered, or its refusal (thrown). */
  #admitted(
    policy: KeyPolicy,
    limits: KeyLimits,
    asked: AdmitRequest,
    seen: AdmitResult,
    now: number,
  ): Admission {
    const headers = rateLimitHeaders(limits, seen, now);
    if (!seen.ok) throw refusal(policy, seen.failed!, seen, headers, now);
    return new Charged(this, asked, headers);
  }

  /**
   * Settles the admission that asked `asked` (called once, by its {@link Admission.settle}): the real usage
   * replaces the reservation and the concurrency slot is freed.
   */
  settleCharged(asked: AdmitRequest, usage: Usage | undefined, target: string): void {
    const actualMicros = usage ? Math.round(this.#prices.cost(target, usage).usd * 1e6) : 0;
    const settle: SettleRequest = {
      keyId: asked.keyId,
      ticket: asked.ticket,
      tokensDelta: (usage ? totalTokens(usage) : 0) - asked.tokens,
      costMicrosDelta: actualMicros - asked.costMicros,
      period: asked.period,
      periodTtlMs: asked.periodTtlMs,
    };
    const counters = this.#counters;
    if (counters.settleNow) {
      try {
        counters.settleNow(settle);
        this.#reachable();
      } catch (error) {
        this.#unreachable(error);
      }
      return;
    }
    counters.settle(settle).then(this.#settledOk, this.#settledFailed);
  }

  #settledOk = () => this.#reachable();
  #settledFailed = (error: unknown) => this.#unreachable(error);
}

/** A limited key's admitted request, until it settles (once). */
class Charged implements Admission {
  readonly headers: Readonly<Record<string, string>>;
  readonly charges = true;
  #enforcer: LimitEnforcer | undefined;
  #asked: AdmitRequest;

  constructor(enforcer: LimitEnforcer, asked: AdmitRequest, headers: Readonly<Record<string, string>>) {
    this.#enforcer = enforcer;
    this.#asked = asked;
    this.headers = headers;
  }

  settle(usage: Usage | undefined, target: string): void {
    const enforcer = this.#enforcer;
    if (!enforcer) return;
    this.#enforcer = undefined;
    enforcer.settleCharged(this.#asked, usage, target);
  }
}
