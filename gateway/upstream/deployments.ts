/**
 * Several deployments behind one model name (`deployments:` in GATEWAY_CONFIG): each request orders the
 * group's deployments by its strategy — `weighted` (the first drawn at random by weight), `round-robin`,
 * `least-busy` (fewest requests in flight) or `latency` (lowest EWMA of the attempt's time to an answer: a
 * stream's headers, a whole answer's body) — leaving out those cooling down after a 429 / 529 (for their
 * `retry-after`, else the group's `cooldown_ms`) and those at their own `rpm` / `tpm` cap in the current
 * minute (`tpm` counts an attempt's input estimate at its start, replaced by the upstream's reported usage
 * — input, cache and output tokens — when its answer ends). attempts.ts tries them in that order, then the name's fallbacks; the circuit breaker still applies
 * per deployment. Active health checks (health_checks.ts) take a deployment whose checks fail out of every
 * order until one passes.
 *
 * With `GATEWAY_REDIS_URL` the state is also kept in Redis (shared_deployments.ts) and every instance orders
 * by what all of them recorded: cooldowns, in-flight counts, the minute's counts, EWMAs, health verdicts.
 * Then `order` reads Redis (one script, awaited) and returns a promise; writes are sent without waiting,
 * except a cooldown's, which the failing attempt waits for before moving on. If Redis fails or times out,
 * the pool falls back to its own state (which it keeps in any case, and which keeps every cooldown it read
 * from Redis) without waiting, and probes Redis again once a second. Without Redis, `order` is synchronous.
 */
import type { Usage } from "../messages/types.ts";
import type { SharedDeploymentState, SharedSnapshot } from "./shared_deployments.ts";
import {
  DEFAULT_COOLDOWN_MS,
  type DeploymentSpec,
  EWMA_ALPHA,
  type GroupSpec,
  type Ordered,
  type Skipped,
  type Strategy,
} from "./deployment_spec.ts";

export * from "./deployment_spec.ts";

/** Live state of one deployment. */
interface Live {
  spec: DeploymentSpec;
  inFlight: number;
  ewmaMs: number | undefined;
  coolUntil: number;
  minute: number;
  requests: number;
  tokens: number;
  /** Failing its health checks (this instance's). */
  down: boolean;
  /** In flight, as ordered now (here, or at every instance when Redis answered). */
  load: number;
  /** The EWMA, as ordered now. */
  speed: number | undefined;
}

/** Starts a new minute of a deployment's request and token counts. */
function roll(member: Live, minute: number): void {
  if (member.minute === minute) return;
  member.minute = minute;
  member.requests = 0;
  member.tokens = 0;
}

interface Group {
  name: string;
  targets: string[];
  strategy: Strategy;
  cooldownMs: number;
  members: Live[];
  turn: number;
}

/** Options of a pool shared through Redis. */
export interface SharingOptions {
  /** The shared store. */
  state: SharedDeploymentState;
  /** Told when the store stops answering (with the error) and when it answers again. */
  onChange?: (up: boolean, error?: unknown) => void;
  /** Names this instance's tickets (default: random). */
  instance?: string;
}

/** Every token a usage counts (input, cache reads and writes, output): what a `tpm` cap limits. */
export function tokensOfUsage(usage: Usage): number {
  return countOf(usage.input_tokens) + countOf(usage.cache_creation_input_tokens) +
    countOf(usage.cache_read_input_tokens) + countOf(usage.output_tokens);
}

/** A usage field as a count: an upstream's usage is not trusted to be numbers (a string, NaN, −1 count 0). */
function countOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The tokens an attempt at a deployment with a `tpm` cap was counted for at its start (the input estimate),
 * corrected to the upstream's reported usage when the answer ends.
 */
export class TokenCharge {
  constructor(
    readonly pool: DeploymentPool,
    readonly model: string,
    readonly target: string,
    /** Tokens counted at the start. */
    readonly counted: number,
    /** The minute they were counted in (this instance's clock). */
    readonly minute: number,
    /** The minute by Redis's clock, when sharing. */
    readonly sharedMinute: number | undefined,
  ) {}

  /** The answer ended with `usage` (undefined: no usage came, the estimate stands). */
  settle(usage: Usage | undefined): void {
    if (usage) this.pool.recount(this, tokensOfUsage(usage));
  }
}

/** How long the pool works from its own state after Redis failed, before probing it again. */
export const SHARED_RETRY_MS = 1_000;

/** The live deployment groups of a gateway. */
export class DeploymentPool {
  #groups = new Map<string, Group>();
  #random: () => number;
  #now: () => number;
  #shared: SharingOptions | undefined;
  #up = true;
  #probeAt = 0;
  #tickets = 0;
  #instance: string;

  /** `groups` keyed by model name; `random` and `now` are for tests; `sharing` keeps the state in Redis. */
  constructor(
    groups: Readonly<Record<string, GroupSpec>>,
    random: () => number = Math.random,
    now: () => number = Date.now,
    sharing?: SharingOptions,
  ) {
    this.#random = random;
    this.#now = now;
    this.#shared = sharing;
    this.#instance = sharing?.instance ?? crypto.randomUUID();
    for (const [name, spec] of Object.entries(groups)) {
      const members = spec.targets.map((d) => ({
        spec: d,
        inFlight: 0,
        ewmaMs: undefined,
        coolUntil: 0,
        minute: 0,
        requests: 0,
        tokens: 0,
        down: false,
        load: 0,
        speed: undefined,
      }));
      this.#groups.set(name, {
        name,
        targets: spec.targets.map((d) => d.target),
        strategy: spec.strategy ?? "weighted",
        cooldownMs: spec.cooldown_ms ?? DEFAULT_COOLDOWN_MS,
        members,
        turn: 0,
      });
    }
  }

  /** True when `model` names a group. */
  has(model: string): boolean {
    return this.#groups.has(model);
  }

  /** The first target of a group (what the router resolves its name to). */
  firstTarget(model: string): string | undefined {
    return this.#groups.get(model)?.members[0]?.spec.target;
  }

  /** The group names and their first targets. */
  names(): Array<[string, string]> {
    return [...this.#groups].map(([name, group]) => [name, group.members[0].spec.target]);
  }

  /**
   * Orders `model`'s deployments for one request of about `tokens` input tokens: at once from this
   * instance's state, or (sharing through Redis, while it answers) a promise of the order by every
   * instance's state.
   */
  order(model: string, tokens: number): Ordered | Promise<Ordered> {
    const group = this.#groups.get(model)!;
    if (this.#shared && this.#sharing()) return this.#orderShared(group, tokens, this.#shared.state);
    return this.#orderBy(group, tokens, undefined);
  }

  /** True while Redis answers; after a failure, false (and a probe once a second) until it answers again. */
  #sharing(): boolean {
    if (this.#up) return true;
    const now = this.#now();
    if (now >= this.#probeAt) {
      this.#probeAt = now + SHARED_RETRY_MS;
      this.#shared!.state.ping().then(() => {
        if (this.#up) return;
        this.#up = true;
        this.#shared!.onChange?.(true);
      }, () => {});
    }
    return false;
  }

  #failed(error: unknown): void {
    this.#probeAt = this.#now() + SHARED_RETRY_MS;
    if (!this.#up) return;
    this.#up = false;
    this.#shared?.onChange?.(false, error);
  }

  async #orderShared(group: Group, tokens: number, state: SharedDeploymentState): Promise<Ordered> {
    let remote: SharedSnapshot[] | undefined;
    try {
      remote = await state.read(group.name, group.targets, Math.floor(state.now() / 60_000));
    } catch (error) {
      this.#failed(error);
    }
    return this.#orderBy(group, tokens, remote);
  }

  /** The order from this instance's state, raised to `remote` (every instance's) when given. */
  #orderBy(group: Group, tokens: number, remote: SharedSnapshot[] | undefined): Ordered {
    const now = this.#now();
    const minute = Math.floor(now / 60_000);
    const skipped: Skipped[] = [];
    const usable: Live[] = [];
    for (let i = 0; i < group.members.length; i++) {
      const member = group.members[i];
      roll(member, minute);
      const nextMinute = (minute + 1) * 60_000 - now;
      let requests = member.requests;
      let used = member.tokens;
      let downForMs = member.down ? Infinity : 0;
      member.load = member.inFlight;
      member.speed = member.ewmaMs;
      const shared = remote?.[i];
      if (shared) {
        // Kept: a cooldown read from Redis still holds if Redis goes away.
        if (shared.coolForMs > 0) member.coolUntil = Math.max(member.coolUntil, now + shared.coolForMs);
        requests = Math.max(requests, shared.requests);
        used = Math.max(used, shared.tokens);
        member.load = Math.max(member.load, shared.inFlight);
        member.speed = shared.ewmaMs ?? member.speed;
        downForMs = Math.max(downForMs, shared.downForMs);
      }
      if (member.coolUntil > now) {
        skipped.push({
          target: member.spec.target,
          reason: "cooling_down",
          retryInMs: member.coolUntil - now,
        });
      } else if (downForMs > 0) {
        skipped.push({
          target: member.spec.target,
          reason: "unhealthy",
          // Its return is known only at a passing check: suggest the group's cooldown.
          retryInMs: Math.min(downForMs, group.cooldownMs),
        });
      } else if (member.spec.rpm !== undefined && requests >= member.spec.rpm) {
        skipped.push({ target: member.spec.target, reason: "rpm_cap", retryInMs: nextMinute });
      } else if (member.spec.tpm !== undefined && used + tokens > member.spec.tpm) {
        skipped.push({ target: member.spec.target, reason: "tpm_cap", retryInMs: nextMinute });
      } else usable.push(member);
    }
    const ordered = this.#sort(group, usable);
    return { targets: ordered.map((m) => m.spec.target), skipped };
  }

  #sort(group: Group, usable: Live[]): Live[] {
    if (usable.length <= 1) return usable;
    const turn = group.turn++;
    const rotated = usable.map((_, i) => usable[(i + turn) % usable.length]);
    switch (group.strategy) {
      case "round-robin":
        return rotated;
      case "least-busy":
        // Stable on the rotation: equally busy deployments take turns.
        return rotated.sort((a, b) => a.load - b.load);
      case "latency":
        // Untried deployments first (each gets measured), then the fastest.
        return rotated.sort((a, b) => (a.speed ?? -1) - (b.speed ?? -1));
      case "weighted": {
        const total = usable.reduce((sum, m) => sum + (m.spec.weight ?? 1), 0);
        let draw = this.#random() * total;
        let first = usable.length - 1;
        for (let i = 0; i < usable.length; i++) {
          draw -= usable[i].spec.weight ?? 1;
          if (draw < 0) {
            first = i;
            break;
          }
        }
        const rest = usable.filter((_, i) => i !== first).sort((a, b) =>
          (b.spec.weight ?? 1) - (a.spec.weight ?? 1)
        );
        return [usable[first], ...rest];
      }
    }
  }

  /** Members of `model`'s group at `target` (one, unless a target is listed twice). */
  #member(model: string, target: string): Live | undefined {
    return this.#groups.get(model)?.members.find((m) => m.spec.target === target);
  }

  /**
   * An attempt at `target` for `model` starts (counted toward its in-flight count and caps); the ticket it
   * returns is given back to `finished`.
   */
  started(model: string, target: string, tokens: number): string {
    const member = this.#member(model, target);
    if (!member) return "";
    roll(member, Math.floor(this.#now() / 60_000));
    member.inFlight++;
    member.requests++;
    member.tokens += tokens;
    const ticket = `${this.#instance}:${++this.#tickets}`;
    const shared = this.#shared;
    if (shared && this.#up) {
      shared.state.start(model, target, ticket, tokens, Math.floor(shared.state.now() / 60_000))
        .catch((error) => this.#failed(error));
    }
    return ticket;
  }

  /**
   * For an attempt about to start at `target` (call just before `started`, with the same `tokens`): what it
   * will be counted for, to correct once its usage is known; undefined when the deployment has no `tpm` cap.
   */
  chargeFor(model: string, target: string, tokens: number): TokenCharge | undefined {
    const member = this.#member(model, target);
    if (member?.spec.tpm === undefined) return undefined;
    const shared = this.#shared;
    return new TokenCharge(
      this,
      model,
      target,
      Math.max(0, Math.ceil(tokens)),
      Math.floor(this.#now() / 60_000),
      shared && this.#up ? Math.floor(shared.state.now() / 60_000) : undefined,
    );
  }

  /** Replaces what `charge` counted by `tokens` (the reported usage), in its minute if that is still current. */
  recount(charge: TokenCharge, tokens: number): void {
    const delta = Math.max(0, Math.ceil(tokens)) - charge.counted;
    if (delta === 0) return;
    const member = this.#member(charge.model, charge.target);
    if (member && member.minute === charge.minute) member.tokens = Math.max(0, member.tokens + delta);
    const shared = this.#shared;
    if (shared && this.#up && charge.sharedMinute !== undefined) {
      shared.state.addTokens(charge.model, charge.target, delta, charge.sharedMinute)
        .catch((error) => this.#failed(error));
    }
  }

  /**
   * The attempt ended after `ms`: `ok`, or failed with `errorType`; a rate limit or overload cools the
   * deployment down for `retryAfterS` seconds (else the group's cooldown). Sharing through Redis, the promise
   * of a cooldown's write is returned (the caller waits for it before trying another deployment).
   */
  finished(
    model: string,
    target: string,
    ms: number,
    errorType?: string,
    retryAfterS?: number,
    ticket = "",
  ): Promise<void> | undefined {
    const member = this.#member(model, target);
    if (!member) return;
    member.inFlight = Math.max(0, member.inFlight - 1);
    let coolMs: number | undefined;
    if (errorType === undefined) {
      member.ewmaMs = member.ewmaMs === undefined ? ms : EWMA_ALPHA * ms + (1 - EWMA_ALPHA) * member.ewmaMs;
    } else if (errorType === "rate_limit_error" || errorType === "overloaded_error") {
      const group = this.#groups.get(model)!;
      coolMs = retryAfterS !== undefined && retryAfterS > 0 ? retryAfterS * 1000 : group.cooldownMs;
      member.coolUntil = Math.max(member.coolUntil, this.#now() + coolMs);
    }
    const shared = this.#shared;
    if (!shared || !this.#up) return;
    const write = shared.state.finish(model, target, ticket, errorType === undefined ? ms : undefined, coolMs)
      .catch((error) => this.#failed(error));
    return coolMs === undefined ? undefined : write;
  }

  /**
   * A health check's verdict on `target` (in every group that has it): `healthy`, or out; `holdMs` is how long
   * other instances keep it out without hearing again (sharing through Redis).
   */
  setHealth(target: string, healthy: boolean, holdMs: number): void {
    for (const group of this.#groups.values()) {
      for (const member of group.members) {
        if (member.spec.target !== target) continue;
        const changed = member.down === healthy;
        member.down = !healthy;
        const shared = this.#shared;
        // A failing deployment's verdict is refreshed at each check; a healthy one is written once.
        if (shared && this.#up && (!healthy || changed)) {
          shared.state.health(group.name, target, healthy ? 0 : holdMs).catch((error) => this.#failed(error));
        }
      }
    }
  }

  /** Every deployment of every group with its spec (for the health checks). */
  deployments(): DeploymentSpec[] {
    const seen = new Map<string, DeploymentSpec>();
    for (const group of this.#groups.values()) {
      for (const m of group.members) if (!seen.has(m.spec.target)) seen.set(m.spec.target, m.spec);
    }
    return [...seen.values()];
  }

  /** A snapshot of one deployment (tests, diagnostics). */
  state(
    model: string,
    target: string,
  ): { inFlight: number; ewmaMs?: number; coolingForMs: number; healthy: boolean } | undefined {
    const member = this.#member(model, target);
    if (!member) return undefined;
    return {
      healthy: !member.down,
      inFlight: member.inFlight,
      ewmaMs: member.ewmaMs,
      coolingForMs: Math.max(0, member.coolUntil - this.#now()),
    };
  }
}
