/**
 * GitHub Actions OIDC: a workflow's ID token (RS256, signed by the issuer's JWKS) is verified with jose —
 * issuer, audience, `exp`/`nbf`/`iat`, an asymmetric algorithm only (so `alg: none` and HS256 keyed with the
 * public JWKS fail), a known `kid` — and matched against the trust rules (first match wins). It is then
 * exchanged for a gateway credential bound to that repository and run, expiring at most 6 h after the token
 * was issued (a GitHub-hosted job's longest run) and never later than the rules' `max_ttl_seconds`.
 */
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import type { GithubOidcTrust, TrustRule } from "./config.ts";
import { MAX_CREDENTIAL_SECONDS } from "./config.ts";
import { type CredentialClaims, CredentialSigner } from "./credential.ts";

/** Why an exchange was refused (stable codes; the message names no token content). */
export type ExchangeRefusal =
  | { code: "invalid_token"; message: string }
  | { code: "no_rule"; message: string }
  | { code: "issuer_unreachable"; message: string };

/** A successful exchange. */
export interface Exchanged {
  credential: string;
  /** `repo:<owner/name>`. */
  principal: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** Options of {@link GithubOidcExchange}. */
export interface ExchangeOptions {
  trust: GithubOidcTrust;
  /** GATEWAY_IDENTITY_SECRET. */
  secret: string;
  /** The issuer's keys (default: its JWKS, discovered, cached by jose). */
  keys?: JWTVerifyGetKey;
  /** Reaches the issuer (discovery, JWKS). */
  fetch?: typeof fetch;
  /** The clock (epoch ms). */
  now?: () => number;
}

/** Asymmetric algorithms GitHub may sign with; anything else (none, HS*) is refused. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"];

/** A glob as a RegExp: `*` any run of characters but `/`, `**` any run at all, `?` one character. */
export function globToRegExp(glob: string, ignoreCase = false): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, ignoreCase ? "i" : "");
}

/** The claims a rule looks at (repository and owner compare case-insensitively, as GitHub names do). */
const RULE_CLAIMS = ["repository", "repository_owner", "ref", "workflow_ref", "environment"] as const;
type RuleClaim = typeof RULE_CLAIMS[number];

/** Compiled rules: the first one whose every glob matches admits. */
export class TrustRules {
  #rules: Array<{ rule: TrustRule; tests: Array<[RuleClaim, RegExp]> }>;

  /** Compiles `rules` once. */
  constructor(rules: readonly TrustRule[]) {
    this.#rules = rules.map((rule) => ({
      rule,
      tests: RULE_CLAIMS.filter((c) => rule[c] !== undefined).map((c) => [
        c,
        globToRegExp(rule[c]!, c === "repository" || c === "repository_owner"),
      ]),
    }));
  }

  /** The first rule admitting `claims`, if any. */
  match(claims: Partial<Record<RuleClaim, string>>): TrustRule | undefined {
    return this.#rules.find(({ tests }) =>
      tests.every(([claim, re]) => typeof claims[claim] === "string" && re.test(claims[claim]!))
    )?.rule;
  }
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === "string" && value.length <= 1024
    ? value
    : typeof value === "number"
    ? String(value)
    : undefined;
}

/** A human reason for a jose failure, naming what failed and never the token. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "the token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === "nbf"
      ? "the token is not yet valid"
      : `claim ${error.claim} is not what this gateway accepts`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "the token's key (kid) is not in the issuer's JWKS";
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  return "the token is malformed";
}

/** Verifies GitHub OIDC tokens and mints gateway credentials. */
export class GithubOidcExchange {
  #trust: GithubOidcTrust;
  #keys: JWTVerifyGetKey | undefined;
  #keysLoading: Promise<JWTVerifyGetKey> | undefined;
  #fetch: typeof fetch;
  #now: () => number;
  #signer: CredentialSigner;
  /** The compiled rules (the credential verifier applies them again). */
  readonly rules: TrustRules;

  /** See {@link ExchangeOptions}. */
  constructor(options: ExchangeOptions) {
    this.#trust = options.trust;
    this.#keys = options.keys;
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
    this.#signer = new CredentialSigner(options.secret);
    this.rules = new TrustRules(options.trust.rules);
  }

  /** The issuer's JWKS (its URI discovered unless configured; a failed discovery is retried next time). */
  #issuerKeys(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return Promise.resolve(this.#keys);
    this.#keysLoading ??= (async () => {
      let uri = this.#trust.jwks_uri;
      if (!uri) {
        const issuer = this.#trust.issuer.replace(/\/+$/, "");
        const response = await this.#fetch(`${issuer}/.well-known/openid-configuration`, {
          signal: AbortSignal.timeout(5_000),
        });
        if (!response.ok) throw new Error(`issuer discovery answered HTTP ${response.status}`);
        const metadata = await response.json() as { jwks_uri?: unknown };
        if (typeof metadata.jwks_uri !== "string") throw new Error("issuer discovery has no jwks_uri");
        uri = metadata.jwks_uri;
      }
      const fetchImpl = this.#fetch;
      this.#keys = createRemoteJWKSet(new URL(uri), {
        timeoutDuration: 5_000,
        [customFetch]: (url: string, init: RequestInit) => fetchImpl(url, init),
      });
      return this.#keys;
    })().catch((error) => {
      this.#keysLoading = undefined;
      throw error;
    });
    return this.#keysLoading;
  }

  /**
   * Exchanges `token` for a credential living `ttlSeconds` at most (default and cap: the rules'
   * `max_ttl_seconds`, and never past 6 h after the token was issued); a refusal otherwise.
   */
  async exchange(token: string, ttlSeconds?: number): Promise<Exchanged | ExchangeRefusal> {
    if (token.length > 16_384 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(token)) {
      return { code: "invalid_token", message: "the GitHub OIDC token is malformed" };
    }
    let payload: JWTPayload;
    try {
      const keys = await this.#issuerKeys();
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.#trust.issuer,
        audience: this.#trust.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ["exp", "iat", "repository", "repository_owner", "run_id"],
        currentDate: new Date(this.#now()),
        clockTolerance: 5,
      }));
    } catch (error) {
      if (
        !(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout ||
        error instanceof errors.JWKSInvalid || error.code === "ERR_JOSE_GENERIC"
      ) {
        return {
          code: "issuer_unreachable",
          message: "the GitHub OIDC issuer's keys cannot be read right now",
        };
      }
      return { code: "invalid_token", message: `the GitHub OIDC token was refused: ${reasonOf(error)}` };
    }
    const claims = {
      repository: stringClaim(payload, "repository")!,
      repository_owner: stringClaim(payload, "repository_owner")!,
      ref: stringClaim(payload, "ref"),
      workflow_ref: stringClaim(payload, "workflow_ref"),
      environment: stringClaim(payload, "environment"),
      run_id: stringClaim(payload, "run_id")!,
      run_attempt: stringClaim(payload, "run_attempt"),
    };
    if (!claims.repository || !claims.repository_owner || !claims.run_id) {
      return { code: "invalid_token", message: "the GitHub OIDC token lacks repository or run claims" };
    }
    if (!this.rules.match(claims)) {
      return {
        code: "no_rule",
        message: `no trust rule of this gateway admits repository ${claims.repository}` +
          (claims.ref ? ` at ${claims.ref}` : ""),
      };
    }
    const nowSeconds = Math.floor(this.#now() / 1000);
    const ttl = Math.min(ttlSeconds ?? Infinity, this.#trust.max_ttl_seconds);
    const exp = Math.min(nowSeconds + ttl, payload.iat! + MAX_CREDENTIAL_SECONDS);
    const bound: CredentialClaims = { ...claims, exp };
    for (const key of Object.keys(bound) as Array<keyof CredentialClaims>) {
      if (bound[key] === undefined) delete bound[key];
    }
    return {
      credential: this.#signer.mint(bound),
      principal: `repo:${claims.repository}`,
      expiresAt: exp * 1000,
    };
  }
}
