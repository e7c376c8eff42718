/**
 * `get-session` under the membership gate: first-party apps learn the user's `groups` (the same list the
 * `groups` claim carries) next to `session` and `user`, and a user who lost access gets `null`, as for no
 * session (their sessions and grants have ended by then; auth/membership/access.ts).
 */
import type { MembershipGate } from "./access.ts";

/** The get-session answer with `groups` added, or `null` when the user's access has ended. */
export async function withMembership(response: Response, gate: MembershipGate): Promise<Response> {
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("application/json")) {
    return response;
  }
  const body = await response.clone().json().catch(() => undefined) as
    | { user?: { id?: unknown } }
    | null
    | undefined;
  if (!body || typeof body.user?.id !== "string") return response;
  const decision = await gate.revalidateUser(body.user.id);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.set("cache-control", "no-store");
  const answer = decision.ok ? { ...body, groups: decision.groups } : null;
  return new Response(JSON.stringify(answer), { status: response.status, headers });
}
