/**
 * Several deployments behind one model name (`deployments:` in GATEWAY_CONFIG): each request orders the
 * group's deployments by its strategy — `weighted` (the first drawn at random by weight), `round-robin`,
 * `least-busy` (fewest requests in flight) or `latency` (lowest EWMA of the attempt's time to an answer: a
 * stream's headers, a whole answer's body) — leaving out those cooling down after a 429 / 529 (for their
 * `retry-after`, else the group's `cooldown_ms`) and those at their own `rpm` / `tpm` cap in the current
 * minute. attempts.ts tries them in that order, then the name's fallbacks; the circuit breaker still applies
 * per deployment. State is per gateway process.
 */

/** How a group orders its deployments. */
export type Strategy = "weighted" | "least-busy" | "latency" | "round-robin";

/** One deployment of a group, as configured. */
export interface DeploymentSpec {
  /** `provider/model`. */
  target: string;
  /** Relative share under `weighted` (default 1). */
  weight?: number;
  /** Most requests per minute sent to it. */
  rpm?: number;
  /** Most input tokens (the gateway's estimate) per minute sent to it. */
  tpm?: number;
}

/** One group, as configured. */
export interface GroupSpec {
  strategy?: Strategy;
  /** Cooldown after a 429 / 529 that states no `retry-after` (default {@link DEFAULT_COOLDOWN_MS}). */
  cooldown_ms?: number;
  targets: readonly DeploymentSpec[];
}

/** Cooldown of a deployment whose 429 / 529 states no delay. */
export const DEFAULT_COOLDOWN_MS = 5_000;
/** Weight of the newest sample in the latency EWMA. */
export const EWMA_ALPHA = 0.3;

/** Live state of one deployment. */
interface Live {
  spec: DeploymentSpec;
  inFlight: number;
  ewmaMs: number | undefined;
  coolUntil: number;
  minute: number;
  requests: number;
  tokens: number;
}

/** Starts a new minute of a deployment's request and token counts. */
function roll(member: Live, minute: number): void {
  if (member.minute === minute) return;
  member.minute = minute;
  member.requests = 0;
  member.tokens = 0;
}

/** Why a deployment was left out of a request's order. */
export type Skipped = { target: string; reason: "cooling_down" | "rpm_cap" | "tpm_cap"; retryInMs: number };

/** The order of one request's deployments, and those left out. */
export interface Ordered {
  targets: string[];
  skipped: Skipped[];
}

interface Group {
  strategy: Strategy;
  cooldownMs: number;
  members: Live[];
  turn: number;
}

/** The live deployment groups of a gateway. */
export class DeploymentPool {
  #groups = new Map<string, Group>();
  #random: () => number;
  #now: () => number;

  /** `groups` keyed by model name; `random` and `now` are for tests. */
  constructor(
    groups: Readonly<Record<string, GroupSpec>>,
    random: () => number = Math.random,
    now: () => number = Date.now,
  ) {
    this.#random = random;
    this.#now = now;
    for (const [name, spec] of Object.entries(groups)) {
      const members = spec.targets.map((d) => ({
        spec: d,
        inFlight: 0,
        ewmaMs: undefined,
        coolUntil: 0,
        minute: 0,
        requests: 0,
        tokens: 0,
      }));
      this.#groups.set(name, {
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

  /** Orders `model`'s deployments for one request of about `tokens` input tokens. */
  order(model: string, tokens: number): Ordered {
    const group = this.#groups.get(model)!;
    const now = this.#now();
    const minute = Math.floor(now / 60_000);
    const skipped: Skipped[] = [];
    const usable: Live[] = [];
    for (const member of group.members) {
      roll(member, minute);
      const nextMinute = (minute + 1) * 60_000 - now;
      if (member.coolUntil > now) {
        skipped.push({
          target: member.spec.target,
          reason: "cooling_down",
          retryInMs: member.coolUntil - now,
        });
      } else if (member.spec.rpm !== undefined && member.requests >= member.spec.rpm) {
        skipped.push({ target: member.spec.target, reason: "rpm_cap", retryInMs: nextMinute });
      } else if (member.spec.tpm !== undefined && member.tokens + tokens > member.spec.tpm) {
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
        return rotated.sort((a, b) => a.inFlight - b.inFlight);
      case "latency":
        // Untried deployments first (each gets measured), then the fastest.
        return rotated.sort((a, b) => (a.ewmaMs ?? -1) - (b.ewmaMs ?? -1));
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

  /** An attempt at `target` for `model` starts (counted toward its in-flight count and caps). */
  started(model: string, target: string, tokens: number): void {
    const member = this.#member(model, target);
    if (!member) return;
    roll(member, Math.floor(this.#now() / 60_000));
    member.inFlight++;
    member.requests++;
    member.tokens += tokens;
  }

  /**
   * The attempt ended after `ms`: `ok`, or failed with `errorType`; a rate limit or overload cools the
   * deployment down for `retryAfterS` seconds (else the group's cooldown).
   */
  finished(model: string, target: string, ms: number, errorType?: string, retryAfterS?: number): void {
    const member = this.#member(model, target);
    if (!member) return;
    member.inFlight = Math.max(0, member.inFlight - 1);
    if (errorType === undefined) {
      member.ewmaMs = member.ewmaMs === undefined ? ms : EWMA_ALPHA * ms + (1 - EWMA_ALPHA) * member.ewmaMs;
    } else if (errorType === "rate_limit_error" || errorType === "overloaded_error") {
      const group = this.#groups.get(model)!;
      const cooldown = retryAfterS !== undefined && retryAfterS > 0 ? retryAfterS * 1000 : group.cooldownMs;
      member.coolUntil = this.#now() + cooldown;
    }
  }

  /** A snapshot of one deployment (tests, diagnostics). */
  state(
    model: string,
    target: string,
  ): { inFlight: number; ewmaMs?: number; coolingForMs: number } | undefined {
    const member = this.#member(model, target);
    if (!member) return undefined;
    return {
      inFlight: member.inFlight,
      ewmaMs: member.ewmaMs,
      coolingForMs: Math.max(0, member.coolUntil - this.#now()),
    };
  }
}
