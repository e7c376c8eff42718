/**
 * OAuth client management for the `oauth:clients` command: list, show, update (name and redirect URIs,
 * checked as `oauth:register` checks them), secret rotation (the new secret is returned once; only its
 * SHA-256 is stored, as Better Auth stores secrets) and deletion with everything issued to the client.
 * Registration itself stays `oauth:register`; none of this has an HTTP route.
 */
import type { Client, InStatement } from "@libsql/client";
import { generateRandomString } from "better-auth/crypto";
import { AppError } from "@switchyard/lib/errors.ts";
import { commandError } from "../service_errors.ts";
import { sha256Base64Url } from "../endpoints/client_auth.ts";
import { redirectUriProblem } from "./redirect_uri.ts";
import { backchannelUriProblem, saveBackchannelStatement } from "../logout/backchannel_clients.ts";

/** A client as the operator sees it (never its secret or hash). */
export interface ClientInfo {
  /** The client id. */
  client_id: string;
  /** Display name. */
  name: string;
  /** `confidential` (a secret) or `public` (PKCE only). */
  type: "confidential" | "public";
  /** Exact redirect URIs. */
  redirect_uris: string[];
  /** Exact post-logout redirect URIs. */
  post_logout_redirect_uris: string[];
  /** First-party: no consent page. */
  skip_consent: boolean;
  /** RP-initiated logout allowed. */
  enable_end_session: boolean;
  /** Disabled clients cannot authorize. */
  disabled: boolean;
  /** OIDC Back-Channel Logout URI, if registered. */
  backchannel_logout_uri: string | null;
  /** Whether the client needs `sid` in logout tokens. */
  backchannel_logout_session_required: boolean;
  /** Registration time (ISO), when known. */
  created_at: string | null;
}

/** {@link ClientInfo} plus what is currently issued to the client. */
export interface ClientDetails extends ClientInfo {
  /** Unrevoked, unexpired refresh tokens. */
  active_refresh_tokens: number;
  /** Unexpired access tokens. */
  active_access_tokens: number;
  /** Users who consented. */
  consents: number;
}

const COLUMNS = "c.client_id, name, public, token_endpoint_auth_method, redirect_uris, " +
  "post_logout_redirect_uris, skip_consent, enable_end_session, disabled, created_at, b.logout_uri, " +
  "b.session_required";
/** The client table with its back-channel logout registration (auth/logout/backchannel_clients.ts). */
const FROM = "oauth_client c LEFT JOIN svc_backchannel_client b ON b.client_id = c.client_id";

function list(value: unknown): string[] {
  if (value === null || value === undefined || value === "") return [];
  try {
    const parsed = JSON.parse(String(value));
    return Array.isArray(parsed) ? parsed.map(String) : [String(value)];
  } catch {
    return String(value).split(",").filter(Boolean);
  }
}

function toInfo(row: Record<string, unknown>): ClientInfo {
  const isPublic = Number(row.public) === 1 || row.token_endpoint_auth_method === "none";
  return {
    client_id: String(row.client_id),
    name: String(row.name ?? ""),
    type: isPublic ? "public" : "confidential",
    redirect_uris: list(row.redirect_uris),
    post_logout_redirect_uris: list(row.post_logout_redirect_uris),
    skip_consent: Number(row.skip_consent) === 1,
    enable_end_session: Number(row.enable_end_session) === 1,
    disabled: Number(row.disabled) === 1,
    backchannel_logout_uri: row.logout_uri === null || row.logout_uri === undefined
      ? null
      : String(row.logout_uri),
    backchannel_logout_session_required: Number(row.session_required) === 1,
    created_at: row.created_at === null ? null : new Date(Number(row.created_at)).toISOString(),
  };
}

function notFound(clientId: string): AppError {
  return commandError("NOT_FOUND", `no OAuth client with id ${JSON.stringify(clientId)}`);
}

/** Every registered client, oldest first. */
export async function listClients(client: Client): Promise<ClientInfo[]> {
  const result = await client.execute(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY created_at, c.client_id`);
  return result.rows.map((row) => toInfo(row as Record<string, unknown>));
}

async function clientRow(client: Client, clientId: string): Promise<ClientInfo> {
  const result = await client.execute({
    sql: `SELECT ${COLUMNS} FROM ${FROM} WHERE c.client_id = ?`,
    args: [clientId],
  });
  if (!result.rows[0]) throw notFound(clientId);
  return toInfo(result.rows[0] as Record<string, unknown>);
}

/** One client with counts of what is issued to it; AppError NOT_FOUND for an unknown id. */
export async function showClient(client: Client, clientId: string, now = Date.now()): Promise<ClientDetails> {
  const info = await clientRow(client, clientId);
  const counts = await client.execute({
    sql: `SELECT
      (SELECT count(*) FROM oauth_refresh_token WHERE client_id = ? AND revoked IS NULL AND expires_at > ?) AS r,
      (SELECT count(*) FROM oauth_access_token WHERE client_id = ? AND expires_at > ?) AS a,
      (SELECT count(*) FROM oauth_consent WHERE client_id = ?) AS c`,
    args: [clientId, now, clientId, now, clientId],
  });
  const row = counts.rows[0];
  return {
    ...info,
    active_refresh_tokens: Number(row.r),
    active_access_tokens: Number(row.a),
    consents: Number(row.c),
  };
}

/** What `update` may change; an absent field stays as it is, a list replaces the stored one. */
export interface ClientUpdate {
  /** New display name. */
  name?: string;
  /** New redirect URIs (replace all). */
  redirectUris?: string[];
  /** New post-logout redirect URIs (replace all). */
  postLogoutRedirectUris?: string[];
  /** New back-channel logout URI; `null` removes the registration. */
  backchannelLogoutUri?: string | null;
  /** Whether logout tokens must carry `sid` (with a URI given: as given, default false). */
  backchannelLogoutSessionRequired?: boolean;
}

/** Every problem with `update` for `info`, as `oauth:register` words them. */
export function updateProblems(info: ClientInfo, update: ClientUpdate): string[] {
  const problems: string[] = [];
  const isPublic = info.type === "public";
  if (update.name !== undefined && !update.name.trim()) problems.push("--name must not be empty");
  for (const uri of update.redirectUris ?? []) {
    const problem = redirectUriProblem(uri, isPublic);
    if (problem) problems.push(`--redirect-uri ${problem}`);
  }
  for (const uri of update.postLogoutRedirectUris ?? []) {
    const problem = redirectUriProblem(uri, isPublic);
    if (problem) problems.push(`--post-logout-redirect-uri ${problem}`);
  }
  if (update.postLogoutRedirectUris?.length && !info.enable_end_session) {
    problems.push(`--post-logout-redirect-uri needs a client registered with --enable-end-session`);
  }
  if (typeof update.backchannelLogoutUri === "string") {
    const problem = backchannelUriProblem(update.backchannelLogoutUri);
    if (problem) problems.push(problem);
  }
  const uriAfter = update.backchannelLogoutUri === undefined
    ? info.backchannel_logout_uri
    : update.backchannelLogoutUri;
  if (update.backchannelLogoutSessionRequired && uriAfter === null) {
    problems.push("--backchannel-logout-session-required needs a --backchannel-logout-uri");
  }
  return problems;
}

/** Applies `update` in one statement; AppError BAD_REQUEST (nothing written) or NOT_FOUND. */
export async function updateClient(
  client: Client,
  clientId: string,
  update: ClientUpdate,
): Promise<ClientInfo> {
  const info = await clientRow(client, clientId);
  const problems = updateProblems(info, update);
  if (problems.length) throw commandError("BAD_REQUEST", problems.join("\nerror: "));
  const sets: string[] = ["updated_at = ?"];
  const args: (string | number)[] = [Date.now()];
  if (update.name !== undefined) sets.push("name = ?"), args.push(update.name);
  if (update.redirectUris) sets.push("redirect_uris = ?"), args.push(JSON.stringify(update.redirectUris));
  if (update.postLogoutRedirectUris) {
    sets.push("post_logout_redirect_uris = ?"), args.push(JSON.stringify(update.postLogoutRedirectUris));
  }
  const backchannel =
    update.backchannelLogoutUri === undefined && update.backchannelLogoutSessionRequired === undefined
      ? []
      : [saveBackchannelStatement(
        clientId,
        (update.backchannelLogoutUri === undefined
            ? info.backchannel_logout_uri
            : update.backchannelLogoutUri) ===
            null
          ? undefined
          : {
            uri: update.backchannelLogoutUri ?? info.backchannel_logout_uri!,
            sessionRequired: update.backchannelLogoutSessionRequired ??
              (update.backchannelLogoutUri === undefined ? info.backchannel_logout_session_required : false),
          },
      )];
  const [result] = await client.batch([
    { sql: `UPDATE oauth_client SET ${sets.join(", ")} WHERE client_id = ?`, args: [...args, clientId] },
    ...backchannel,
  ], "write");
  if (result.rowsAffected !== 1) throw notFound(clientId);
  return await clientRow(client, clientId);
}

/**
 * Gives a confidential client a new secret, made as Better Auth makes them (32 letters), and stores only its
 * SHA-256; the old secret stops working at once. Returns the secret, to be shown once.
 */
export async function rotateClientSecret(client: Client, clientId: string): Promise<string> {
  const info = await clientRow(client, clientId);
  if (info.type === "public") {
    throw commandError("BAD_REQUEST", `client ${clientId} is public: it has no secret to rotate`);
  }
  const secret = generateRandomString(32, "a-z", "A-Z");
  const result = await client.execute({
    sql: "UPDATE oauth_client SET client_secret = ?, updated_at = ? WHERE client_id = ? AND public IS NOT 1",
    args: [await sha256Base64Url(secret), Date.now(), clientId],
  });
  if (result.rowsAffected !== 1) throw notFound(clientId);
  return secret;
}

/**
 * Statements that revoke what was issued to `where` (a SQL condition on `oauth_*_token` columns with
 * `args`): the grants of those tokens are marked revoked (a token a concurrent exchange records under one
 * of them is dropped), then access and refresh tokens are deleted.
 */
export function revokeTokensWhere(where: string, args: (string | number)[]): InStatement[] {
  return [
    {
      sql: "INSERT OR IGNORE INTO svc_grant_revoked (grant_id, revoked_at) " +
        `SELECT DISTINCT grant_id, ? FROM svc_grant_token WHERE token_hash IN (` +
        `SELECT token FROM oauth_access_token WHERE ${where} UNION ` +
        `SELECT token FROM oauth_refresh_token WHERE ${where} UNION ` +
        // An access token from a rotation is recorded through its refresh token (auth/grants/refresh_grant.ts).
        `SELECT token FROM oauth_refresh_token WHERE id IN (SELECT refresh_id FROM oauth_access_token WHERE ${where}))`,
      args: [Date.now(), ...args, ...args, ...args],
    },
    { sql: `DELETE FROM oauth_access_token WHERE ${where}`, args },
    { sql: `DELETE FROM oauth_refresh_token WHERE ${where}`, args },
  ];
}

/** Deletes a client, its tokens, consents, unredeemed codes and claims, in one write batch; AppError NOT_FOUND when unknown. */
export async function deleteClient(client: Client, clientId: string): Promise<ClientDetails> {
  const details = await showClient(client, clientId);
  const results = await client.batch([
    ...revokeTokensWhere("client_id = ?", [clientId]),
    { sql: "DELETE FROM oauth_consent WHERE client_id = ?", args: [clientId] },
    { sql: "DELETE FROM svc_grant_claim WHERE client_id = ?", args: [clientId] },
    saveBackchannelStatement(clientId, undefined),
    {
      sql: "DELETE FROM verification WHERE CASE WHEN json_valid(value) THEN " +
        "json_extract(value, '$.type') = 'authorization_code' AND json_extract(value, '$.query.client_id') = ? " +
        "ELSE 0 END",
      args: [clientId],
    },
    { sql: "DELETE FROM oauth_client WHERE client_id = ?", args: [clientId] },
  ], "write");
  if (results.at(-1)!.rowsAffected !== 1) throw notFound(clientId);
  return details;
}
