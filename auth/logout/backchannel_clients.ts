/**
 * A client's OIDC Back-Channel Logout 1.0 registration (`backchannel_logout_uri`,
 * `backchannel_logout_session_required`), kept in `svc_backchannel_client` beside Better Auth's
 * `oauth_client` (migrations/0004_backchannel_logout.sql).
 */
import type { Client, InStatement } from "@libsql/client";
import { redirectUriProblem } from "../operations/redirect_uri.ts";

/** A client's back-channel logout registration. */
export interface BackchannelRegistration {
  /** Where logout tokens are POSTed. */
  uri: string;
  /** Whether the RP needs `sid` in every logout token. */
  sessionRequired: boolean;
}

/**
 * Problems with a back-channel logout URI (OIDC Back-Channel Logout 1.0 §2.2: absolute, no fragment; https,
 * or http on loopback as for redirect URIs), worded for the `--backchannel-logout-uri` flag.
 */
export function backchannelUriProblem(uri: string): string | undefined {
  const problem = redirectUriProblem(uri, false);
  return problem ? `--backchannel-logout-uri ${problem}` : undefined;
}

/** The statement that stores (or, with `undefined`, removes) `clientId`'s registration. */
export function saveBackchannelStatement(
  clientId: string,
  registration: BackchannelRegistration | undefined,
  now = Date.now(),
): InStatement {
  if (!registration) {
    return { sql: "DELETE FROM svc_backchannel_client WHERE client_id = ?", args: [clientId] };
  }
  return {
    sql: "INSERT INTO svc_backchannel_client (client_id, logout_uri, session_required, updated_at) " +
      "VALUES (?, ?, ?, ?) ON CONFLICT (client_id) DO UPDATE SET logout_uri = excluded.logout_uri, " +
      "session_required = excluded.session_required, updated_at = excluded.updated_at",
    args: [clientId, registration.uri, registration.sessionRequired ? 1 : 0, now],
  };
}

/** `clientId`'s registration, if any. */
export async function backchannelOf(
  client: Client,
  clientId: string,
): Promise<BackchannelRegistration | undefined> {
  const result = await client.execute({
    sql: "SELECT logout_uri, session_required FROM svc_backchannel_client WHERE client_id = ?",
    args: [clientId],
  });
  const row = result.rows[0];
  return row
    ? { uri: String(row.logout_uri), sessionRequired: Number(row.session_required) === 1 }
    : undefined;
}
