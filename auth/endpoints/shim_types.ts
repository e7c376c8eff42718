/** What the OAuth shims share: their dependencies, the forward function, and small request helpers. */
import type { Client } from "@libsql/client";
import type { JwtSigner } from "../signing/id_token_signer.ts";
import type { GroupCommit } from "@switchyard/lib/group_commit.ts";
import type { MembershipGate } from "../membership/access.ts";
import type { AuditEvent } from "../audit/mod.ts";

/** What the shims need. */
export interface ShimDeps {
  /** Raw libSQL client of the auth database. */
  client: Client;
  /** The issuer, for `iss` on error redirects. */
  issuer: string;
  /** Shared write transactions for the grants the service answers itself. */
  writes: GroupCommit;
  /** Signs ID tokens with the current key (auth/signing/id_token_signer.ts). */
  signJwt: JwtSigner;
  /** Called after a write queued back-channel logouts (starts their delivery). */
  logoutQueued?: () => void;
  /** `AUTH_REFRESH_REUSE_SECONDS`: how long a rotated refresh token still gets its successor's answer. */
  refreshReuseSeconds?: number;
  /** The membership gate (re-validation on refresh; the `groups` claim). */
  gate?: MembershipGate;
  /** Records an audit row (never throws). */
  audit?: (event: AuditEvent) => Promise<void>;
  /** The request's session (creation time in ms, user id), if any. */
  currentSession(request: Request): Promise<{ createdAt: number; userId: string } | undefined>;
}

/** Passes a request on to Better Auth. */
export type Forward = (request: Request) => Promise<Response>;

/** True when the request body is a form. */
export function isForm(request: Request): boolean {
  return (request.headers.get("content-type") ?? "").toLowerCase().startsWith(
    "application/x-www-form-urlencoded",
  );
}

/** `response` with `Cache-Control: no-store` and `Pragma: no-cache` (tokens and token facts are never cached). */
export function noStore(response: Response): Response {
  const copy = new Response(response.body, response);
  copy.headers.set("cache-control", "no-store");
  copy.headers.set("pragma", "no-cache");
  return copy;
}
