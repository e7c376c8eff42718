/**
 * `get-session` answers first-party apps (some cross-origin, with credentials). The session cookie is the
 * credential and stays HttpOnly; the bare session token in the JSON body would hand it to any script that
 * can read the answer, so the body never carries it.
 */

/** The response without `session.token` (other fields unchanged); non-JSON answers pass as they are. */
export async function withoutSessionToken(response: Response): Promise<Response> {
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("application/json")) {
    return response;
  }
  const body = await response.clone().json().catch(() => undefined) as
    | { session?: Record<string, unknown> }
    | null
    | undefined;
  if (!body?.session || !("token" in body.session)) return response;
  const { token: _token, ...session } = body.session;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.set("cache-control", "no-store");
  return new Response(JSON.stringify({ ...body, session }), { status: response.status, headers });
}
