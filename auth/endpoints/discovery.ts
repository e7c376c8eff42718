/**
 * Discovery metadata corrections over 1.6.23 (the same JSON on all three discovery URLs):
 * - `request_uri_parameter_supported` defaults to true when omitted (OIDC Discovery §3), but `request_uri`
 *   is refused: it, `request_parameter_supported` and `claims_parameter_supported` are stated as false.
 * - Back-channel logout (auth/logout/) is advertised, with `sid` in logout and ID tokens.
 * - Public clients (`oauth:register --public`) authenticate with `none` at the token and revocation
 *   endpoints; the lists say so (1.6.23 adds `none` only with unauthenticated dynamic registration).
 * - `claims_supported` lists `groups` (the `groups` scope's claim, auth/membership/).
 */
import type { Forward } from "./shim_types.ts";
import { DEVICE_AUTHORIZATION_PATH } from "../device/device_flow.ts";
import { DEVICE_CODE_GRANT } from "../device/device_client.ts";

/** The discovery paths of the service (issuer `{base}/api/auth`). */
export const DISCOVERY_PATHS: ReadonlySet<string> = new Set([
  "/api/auth/.well-known/openid-configuration",
  "/api/auth/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/api/auth",
]);

const withGroups = (value: unknown) =>
  Array.isArray(value) && !value.includes("groups") ? [...value, "groups"] : value;

const withNone = (value: unknown) =>
  Array.isArray(value) && !value.includes("none") ? [...value, "none"] : value;

/** Forwards a discovery request and corrects the metadata of a successful GET. */
export async function discoveryShim(request: Request, forward: Forward): Promise<Response> {
  const response = await forward(request);
  if (!response.ok || (request.method !== "GET" && request.method !== "HEAD")) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  if (request.method === "HEAD") return new Response(null, { status: response.status, headers });
  const metadata = await response.json() as Record<string, unknown>;
  const corrected = {
    ...metadata,
    token_endpoint_auth_methods_supported: withNone(metadata.token_endpoint_auth_methods_supported),
    revocation_endpoint_auth_methods_supported: withNone(metadata.revocation_endpoint_auth_methods_supported),
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
    // OIDC Back-Channel Logout 1.0 §2.1 (auth/logout/): logout tokens carry `sid`, as every ID token does.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    claims_supported: withGroups(metadata.claims_supported),
    // RFC 8628 (auth/device/): the endpoint and its grant type.
    device_authorization_endpoint: `${new URL(request.url).origin}${DEVICE_AUTHORIZATION_PATH}`,
    grant_types_supported: Array.isArray(metadata.grant_types_supported)
      ? [...metadata.grant_types_supported, DEVICE_CODE_GRANT]
      : metadata.grant_types_supported,
  };
  return new Response(JSON.stringify(corrected), { status: response.status, headers });
}
