/**
 * RFC 7662 token introspection, answered by the service: the client authenticates (confidential clients
 * only), and the answer comes from the service's token tables (auth/endpoints/token_info.ts).
 */
import { isForm, noStore, type ShimDeps } from "./shim_types.ts";
import { introspectionFor } from "./token_info.ts";
import { authenticateClient, CLIENT_AUTH_FAILED, presentedCredentials } from "./client_auth.ts";
import { invalidClientResponse, oauthError } from "../oauth_error.ts";

/**
 * Introspection: the client authenticates (confidential only); a token the database does not hold as an
 * access or refresh token is `{"active":false}` without reaching the library (whose JWT path answers a
 * forged or foreign JWT with a 500); the hint is dropped (1.6.23 treats it as a hard filter).
 */
export async function introspectionEndpoint(request: Request, deps: ShimDeps): Promise<Response> {
  if (!isForm(request)) {
    return oauthError(
      "invalid_request",
      "the introspection request must be application/x-www-form-urlencoded",
    );
  }
  const form = new URLSearchParams(await request.text());
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);
  if (!auth.confidential) return invalidClientResponse(CLIENT_AUTH_FAILED, creds.basic);
  const token = form.get("token");
  if (!token) return oauthError("invalid_request", "token is required");
  return noStore(Response.json(await introspectionFor(deps.client, token, auth.clientId, deps.issuer)));
}
