/**
 * The gateway's identities, assembled from its configuration: the combined credential check (API keys, OP
 * access tokens, exchanged GitHub OIDC credentials) and the GitHub OIDC exchange when it is configured.
 */
import type { Kysely } from "kysely";
import type { Logger } from "@switchyard/lib/log.ts";
import type { KeyCheck } from "../request_context.ts";
import { type IdentityEnv, parseGithubOidc } from "./config.ts";
import { GithubOidcExchange } from "./github_oidc.ts";
import { identityCheck } from "./identity_check.ts";
import { TokenIntrospector } from "./introspection.ts";
import { type PoliciesDatabase, policiesLoader, PolicySnapshot } from "./policy_store.ts";

export { GITHUB_OIDC_PATH } from "./exchange_route.ts";
export { GithubOidcExchange } from "./github_oidc.ts";

/** What {@link createIdentities} needs from the world. */
export interface IdentityDeps {
  /** API key verification. */
  keys: KeyCheck;
  /** The gateway database (policies). */
  db: () => Promise<Kysely<PoliciesDatabase>>;
  /** Structured logger. */
  logger: Logger;
  /** Reaches the OP and GitHub's issuer. */
  fetch?: typeof fetch;
  /** How long the policies snapshot is reused (as the key cache). */
  policiesTtlMs: number;
}

/** The assembled identities. */
export interface Identities {
  /** The credential check for every route. */
  check: KeyCheck;
  /** The OP token validator, when an OP is configured (bench and tests read its counters). */
  introspector?: TokenIntrospector;
  /** The GitHub OIDC exchange, when configured. */
  exchange?: GithubOidcExchange;
}

/** Builds the identities `config` asks for; with none configured the check is the key check alone. */
export function createIdentities(config: IdentityEnv, deps: IdentityDeps): Identities {
  const introspector = config.GATEWAY_OIDC_ISSUER
    ? new TokenIntrospector({
      issuer: config.GATEWAY_OIDC_ISSUER,
      clientId: config.GATEWAY_OIDC_CLIENT_ID!,
      clientSecret: config.GATEWAY_OIDC_CLIENT_SECRET!,
      tokenClients: (config.GATEWAY_OIDC_TOKEN_CLIENTS ?? "").split(",").map((c) => c.trim()).filter(Boolean),
      cacheMs: config.GATEWAY_IDENTITY_CACHE_MS,
      timeoutMs: config.GATEWAY_IDENTITY_TIMEOUT_MS,
      fetch: deps.fetch,
      logger: deps.logger,
    })
    : undefined;
  const trust = config.GATEWAY_GITHUB_OIDC ? parseGithubOidc(config.GATEWAY_GITHUB_OIDC).trust : undefined;
  const exchange = trust && config.GATEWAY_IDENTITY_SECRET
    ? new GithubOidcExchange({ trust, secret: config.GATEWAY_IDENTITY_SECRET, fetch: deps.fetch })
    : undefined;
  if (!introspector && !exchange) return { check: deps.keys };
  const check = identityCheck({
    keys: deps.keys,
    users: introspector && {
      introspector,
      policies: new PolicySnapshot(policiesLoader(deps.db), deps.policiesTtlMs),
    },
    repos: exchange && { secret: config.GATEWAY_IDENTITY_SECRET!, rules: exchange.rules },
  });
  return { check, introspector, exchange };
}
