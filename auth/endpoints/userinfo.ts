/**
 * OIDC Core §5.3 userinfo, answered by the service: a live access token with the `openid` scope gets its
 * user's claims (auth/endpoints/token_info.ts); anything else gets the RFC 6750 bearer challenge.
 */
import { isForm, noStore, type ShimDeps } from "./shim_types.ts";
import { userinfoFor } from "./token_info.ts";
import { bearerChallenge } from "../oauth_error.ts";

const USERINFO_REALM = "userinfo";

/** `GET`/`POST /api/auth/oauth2/userinfo` (the token in the header, or in a form body per RFC 6750 §2.2). */
export async function userinfoEndpoint(request: Request, deps: ShimDeps): Promise<Response> {
  const headers = new Headers(request.headers);
  if (request.method === "POST") {
    // OIDC Core §5.3.1: POST with the token in the header or (RFC 6750 §2.2) in a form body; 1.6.23 takes
    // only the header and rejects a bodiless POST with 415, so the request is re-issued as a GET.
    const form = isForm(request) ? new URLSearchParams(await request.text()) : undefined;
    const bodyToken = form?.get("access_token");
    if (bodyToken && !headers.has("authorization")) headers.set("authorization", `Bearer ${bodyToken}`);
    headers.delete("content-type");
    headers.delete("content-length");
  }
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  if (!bearer) return bearerChallenge(USERINFO_REALM);
  const answer = await userinfoFor(deps.client, bearer[1]);
  if ("error" in answer) return bearerChallenge(USERINFO_REALM, answer.error);
  return noStore(Response.json(answer.claims));
}
