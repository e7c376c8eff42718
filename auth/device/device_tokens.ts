/**
 * The tokens of an approved device authorization (auth/device/device_flow.ts): those of the code grant — an
 * opaque access token for an hour, a refresh token for 30 days when the client may refresh, an ID token with
 * `openid` (groups with `groups`) — recorded under a new grant so a replay revokes exactly them.
 */
import { oauthError } from "../oauth_error.ts";
import { issueOpaqueToken, sortableId, storedTokenHash } from "../grants/token_storage.ts";
import { newGrantId, recordGrantTokens } from "../grants/grant_store.ts";
import { userClaims } from "../endpoints/token_info.ts";
import { groupsOf } from "../membership/access.ts";
import { deviceClient, type DeviceDeps, type DeviceRequest } from "./device_client.ts";

const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const ID_TOKEN_SECONDS = 10 * 3600;

/** Access, refresh (when the client may refresh) and ID (with `openid`) tokens for an approved request. */
export async function issueTokens(deps: DeviceDeps, request: DeviceRequest): Promise<Response> {
  const [known, userResult] = await Promise.all([
    deviceClient(deps.client, request.clientId),
    deps.client.execute({
      sql: "SELECT id, name, email, email_verified, image FROM user WHERE id = ?",
      args: [request.userId!],
    }),
  ]);
  const user = userResult.rows[0];
  if (!known) return oauthError("invalid_grant", "the client of this device code is disabled");
  if (!user) return oauthError("invalid_grant", "the user of this device code no longer exists");
  const iat = Math.floor(Date.now() / 1000);
  const accessToken = issueOpaqueToken();
  const refreshToken = known.refresh ? issueOpaqueToken() : undefined;
  const accessHash = storedTokenHash(accessToken);
  const refreshHash = refreshToken && storedTokenHash(refreshToken);
  const refreshId = refreshToken ? sortableId() : null;
  const scopes = JSON.stringify(request.scopes);
  const statements = [];
  if (refreshToken) {
    statements.push({
      sql: "INSERT INTO oauth_refresh_token (id, token, client_id, session_id, user_id, reference_id, " +
        "expires_at, created_at, revoked, auth_time, scopes) VALUES (?, ?, ?, NULL, ?, NULL, ?, ?, NULL, ?, ?)",
      args: [
        refreshId,
        refreshHash!,
        request.clientId,
        request.userId!,
        (iat + REFRESH_TOKEN_SECONDS) * 1000,
        iat * 1000,
        request.authTime ?? null,
        scopes,
      ],
    });
  }
  statements.push({
    sql: "INSERT INTO oauth_access_token (id, token, client_id, session_id, user_id, reference_id, " +
      "refresh_id, expires_at, created_at, scopes) VALUES (?, ?, ?, NULL, ?, NULL, ?, ?, ?, ?)",
    args: [
      sortableId(),
      accessHash,
      request.clientId,
      request.userId!,
      refreshId,
      (iat + ACCESS_TOKEN_SECONDS) * 1000,
      iat * 1000,
      scopes,
    ],
  });
  await deps.client.batch(statements, "write");
  await recordGrantTokens(deps.client, newGrantId(), { accessHash, refreshHash });
  const idToken = request.scopes.includes("openid")
    ? await deps.sign({
      ...userClaims(
        user,
        request.scopes,
        request.scopes.includes("groups") ? await groupsOf(deps.client, request.userId!) : [],
      ),
      ...(request.authTime ? { auth_time: Math.floor(request.authTime / 1000) } : {}),
      iss: deps.issuer,
      aud: request.clientId,
      iat,
      exp: iat + ID_TOKEN_SECONDS,
    })
    : undefined;
  return Response.json({
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: request.scopes.join(" "),
    ...(idToken ? { id_token: idToken } : {}),
  }, { headers: { "cache-control": "no-store", pragma: "no-cache" } });
}
