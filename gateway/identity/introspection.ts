/**
 * Access tokens of the suite's OP, validated by RFC 7662 introspection with a short cache. A decision
 * (admitted or refused) is reused for `cacheMs` (never past the token's `exp`), so a revocation or a
 * disabled user takes effect within that bound while a warm token costs one hash and one map read. When the
 * OP cannot answer, cached decisions hold until they expire and anything else is a 503 `overloaded_error`
 * naming the identity service (for a second after a failure without asking the OP again): an unvalidated
 * token is never admitted. Malformed or oversized tokens are
 * refused before any round trip, and a token never reaches a log line.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import { GatewayError } from "../errors.ts";
import { sha256Hex } from "@switchyard/lib/crypto.ts";

/** A person the OP vouches for. */
export interface UserIdentity {
  /** The OP's subject (`sub`). */
  sub: string;
  /** Their groups (organisations and `org/team`s), lower-case. */
  groups: readonly string[];
  /** Epoch ms when the token expires. */
  expiresAt: number;
}

/** Options of {@link TokenIntrospector}. */
export interface IntrospectorOptions {
  /** The OP's issuer URL. */
  issuer: string;
  /** The gateway's client at the OP (it authenticates introspection; tokens must name it in `aud`). */
  clientId: string;
  /** Its secret. */
  clientSecret: string;
  /** Other client ids whose tokens are accepted when their `aud` names the gateway. */
  tokenClients: readonly string[];
  /** How long a decision is reused. */
  cacheMs: number;
  /** Longest wait for the OP. */
  timeoutMs: number;
  /** Reaches the OP (tests pass their own). */
  fetch?: typeof fetch;
  /** The clock. */
  now?: () => number;
  /** Logs OP outages (once per outage). */
  logger?: Logger;
  /** Most cached decisions (oldest dropped first). */
  maxEntries?: number;
}

/** Longest token looked at; longer ones are refused unread. */
export const MAX_TOKEN_LENGTH = 4096;
/** RFC 6750 `b64token` characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;

interface Decision {
  identity: UserIdentity | null;
  /** Epoch ms until which the decision is reused. */
  until: number;
}

/** The 503 when the OP cannot be asked and nothing cached answers. */
export function identityServiceDown(issuer: string): GatewayError {
  return new GatewayError(
    "overloaded_error",
    `the identity service (${issuer}) cannot validate the access token right now; retry shortly`,
    { status: 503, retryAfter: "1" },
  );
}

/** Reads the groups claim (an array of strings; anything else: none). */
function groupsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((g) => typeof g === "string").map((g) => g.toLowerCase()) : [];
}

/** Validates OP access tokens by introspection, with a bounded cache of decisions. */
export class TokenIntrospector {
  #options: IntrospectorOptions;
  #fetch: typeof fetch;
  #now: () => number;
  #cache = new Map<string, Decision>();
  #inflight = new Map<string, Promise<Decision>>();
  #endpoint: Promise<string> | undefined;
  #down = false;
  /** Until when (epoch ms) a failed OP is not asked again: uncached tokens get the 503 at once. */
  #quietUntil = -Infinity;
  #accepted: ReadonlySet<string>;
  #issuer: string;
  /** Introspection round trips so far (tests and the bench). */
  roundTrips = 0;

  /** See {@link IntrospectorOptions}. */
  constructor(options: IntrospectorOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
    this.#accepted = new Set([options.clientId, ...options.tokenClients]);
    this.#issuer = options.issuer.replace(/\/+$/, "");
  }

  /** Whether `token` looks like a bearer token at all (else it is refused without a round trip). */
  static plausible(token: string): boolean {
    return token.length >= 16 && token.length <= MAX_TOKEN_LENGTH && TOKEN_SHAPE.test(token);
  }

  /** The person `token` belongs to, null when it is not an accepted live access token. */
  async verify(token: string): Promise<UserIdentity | null> {
    if (!TokenIntrospector.plausible(token)) return null;
    const hash = sha256Hex(token);
    const now = this.#now();
    const cached = this.#cache.get(hash);
    if (cached && now < cached.until) {
      return cached.identity && now < cached.identity.expiresAt ? cached.identity : null;
    }
    let pending = this.#inflight.get(hash);
    if (!pending) {
      pending = this.#ask(token).finally(() => this.#inflight.delete(hash));
      this.#inflight.set(hash, pending);
    }
    const decision = await pending;
    this.#remember(hash, decision);
    return decision.identity;
  }

  /** Forgets every cached decision (tests). */
  clear(): void {
    this.#cache.clear();
  }

  #remember(hash: string, decision: Decision): void {
    this.#cache.delete(hash);
    this.#cache.set(hash, decision);
    const max = this.#options.maxEntries ?? 100_000;
    while (this.#cache.size > max) this.#cache.delete(this.#cache.keys().next().value!);
  }

  async #ask(token: string): Promise<Decision> {
    const o = this.#options;
    // Right after a failure (for at most a second) the OP is not asked again: a hanging OP does not make
    // every uncached token wait for the timeout.
    if (this.#now() < this.#quietUntil) throw identityServiceDown(o.issuer);
    let body: Record<string, unknown>;
    try {
      const endpoint = await this.#introspectionEndpoint();
      this.roundTrips++;
      const response = await this.#fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
          authorization: `Basic ${
            btoa(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`)
          }`,
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`introspection answered HTTP ${response.status}`);
      }
      body = await response.json();
      if (!body || typeof body !== "object") throw new Error("introspection answer is not a JSON object");
    } catch (error) {
      this.#outage(error);
      this.#quietUntil = this.#now() + Math.min(1_000, o.timeoutMs);
      throw identityServiceDown(o.issuer);
    }
    if (this.#down) {
      this.#down = false;
      o.logger?.warn("identity service reachable again", { issuer: o.issuer });
    }
    const now = this.#now();
    const identity = this.#identityOf(body, now);
    const until = now + o.cacheMs;
    return { identity, until: identity ? Math.min(until, identity.expiresAt) : until };
  }

  /** The identity of an introspection answer, when it is an accepted live access token. */
  #identityOf(body: Record<string, unknown>, now: number): UserIdentity | null {
    const o = this.#options;
    if (body.active !== true || body.token_type !== "Bearer") return null;
    if (body.iss !== undefined && String(body.iss).replace(/\/+$/, "") !== this.#issuer) return null;
    const clientId = body.client_id;
    if (typeof clientId !== "string" || !this.#accepted.has(clientId)) return null;
    const aud = typeof body.aud === "string" ? [body.aud] : Array.isArray(body.aud) ? body.aud : [];
    // Another client's token must be meant for the gateway; the gateway's own need not say so.
    if (clientId !== o.clientId && !aud.includes(o.clientId)) return null;
    if (aud.length && !aud.includes(o.clientId)) return null;
    if (typeof body.sub !== "string" || !body.sub) return null;
    const exp = typeof body.exp === "number" ? body.exp * 1000 : NaN;
    if (!(exp > now)) return null;
    return Object.freeze({ sub: body.sub, groups: Object.freeze(groupsOf(body.groups)), expiresAt: exp });
  }

  #introspectionEndpoint(): Promise<string> {
    this.#endpoint ??= (async () => {
      const issuer = this.#issuer;
      const response = await this.#fetch(`${issuer}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      if (!response.ok) throw new Error(`discovery answered HTTP ${response.status}`);
      const metadata = await response.json() as Record<string, unknown>;
      if (String(metadata.issuer).replace(/\/+$/, "") !== this.#issuer) {
        throw new Error("discovery names another issuer");
      }
      const endpoint = metadata.introspection_endpoint;
      if (typeof endpoint !== "string" || !/^https?:\/\//.test(endpoint)) {
        throw new Error("discovery has no introspection_endpoint");
      }
      return endpoint;
    })().catch((error) => {
      this.#endpoint = undefined;
      throw error;
    });
    return this.#endpoint;
  }

  #outage(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.#options.logger?.error("identity service unreachable; cached decisions hold until they expire", {
      issuer: this.#options.issuer,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
