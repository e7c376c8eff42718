/**
 * The authorization endpoint shim: POST accepted (OIDC Core §3.1.2.1); PKCE S256 required for every client,
 * with RFC 7636's challenge format; non-`code` response types, `response_mode` other than `query`, `request`
 * and `request_uri` refused; `max_age` enforced by forcing a new login; `id_token_hint` verified (another user
 * than the signed-in one → a new login, or `login_required` with `prompt=none`); `prompt` validated and
 * normalised to the forms 1.6.23 accepts (`none` alone; `select_account` and `create` as `login`;
 * `login consent` in that order). Errors are redirected only to a redirect URI registered for the client.
 */
import type { Client } from "@libsql/client";
import { OAuthError, oauthError, type OAuthErrorCode } from "../oauth_error.ts";
import { verifyIdTokenHint } from "./id_token_hint.ts";
import { type Forward, isForm, type ShimDeps } from "./shim_types.ts";

/** An S256 code challenge: base64url (no padding) of a SHA-256 digest (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The `prompt` values of OIDC Core §3.1.2.1 (+ `create`, Initiating User Registration 1.0). */
const PROMPT_VALUES = new Set(["none", "login", "consent", "select_account", "create"]);

/** Checks and normalises an authorization request before Better Auth sees it. */
export async function authorizeShim(request: Request, forward: Forward, deps: ShimDeps): Promise<Response> {
  const mode = request.headers.get("sec-fetch-mode");
  if (mode !== null && mode !== "navigate") {
    // A browser says how the request was made: fetch(), XHR, <img>… get no code, no consent, no redirect.
    return oauthError(
      "invalid_request",
      "the authorization endpoint is a top-level browser navigation, not a script request",
    );
  }
  let params = new URL(request.url).searchParams;
  if (request.method === "POST") {
    if (!isForm(request)) {
      return oauthError("invalid_request", "POST authorization requests must be a form");
    }
    params = new URLSearchParams(await request.text());
  } else if (request.method !== "GET" && request.method !== "HEAD") {
    return forward(request);
  }
  const registration = await verifiedRedirect(
    deps.client,
    params.get("client_id"),
    params.get("redirect_uri"),
  );
  if (!registration && (request.method === "GET" || request.method === "POST")) {
    // Never Better Auth's own check: it accepts any loopback port for every client (RFC 8252 §7.3 allows that
    // for native public clients only).
    return new OAuthError("invalid_request", "unknown client or unregistered redirect_uri")
      .toErrorPage(`${deps.issuer}/error`);
  }
  if (registration) {
    const redirect = registration.redirectUri;
    const fail = (error: OAuthErrorCode, description: string) =>
      new OAuthError(error, description).toRedirect(redirect, params.get("state"), deps.issuer);
    if (params.has("request")) return fail("request_not_supported", "request objects are not supported");
    if (params.has("request_uri")) return fail("request_uri_not_supported", "request_uri is not supported");
    const responseType = params.get("response_type");
    if (!responseType) return fail("invalid_request", "response_type is required");
    if (responseType !== "code") {
      return fail("unsupported_response_type", "only response_type=code is supported");
    }
    {
      if (!params.get("code_challenge")) {
        return fail("invalid_request", "code_challenge (PKCE S256) is required");
      }
      if ((params.get("code_challenge_method") ?? "plain") !== "S256") {
        return fail("invalid_request", "code_challenge_method must be S256");
      }
      if (!S256_CHALLENGE.test(params.get("code_challenge")!)) {
        return fail(
          "invalid_request",
          "code_challenge must be the 43-character base64url SHA-256 of the verifier",
        );
      }
    }
    const responseMode = params.get("response_mode");
    if (responseMode !== null && responseMode !== "query") {
      // The response would come back in the query anyway, which a form_post/fragment RP may not expect.
      return fail("invalid_request", "only response_mode=query is supported");
    }
    const prompts = new Set((params.get("prompt") ?? "").split(" ").filter(Boolean));
    const unknown = [...prompts].filter((p) => !PROMPT_VALUES.has(p));
    if (unknown.length) return fail("invalid_request", `unsupported prompt value: ${unknown.join(" ")}`);
    if (prompts.has("none") && prompts.size > 1) {
      return fail("invalid_request", "prompt=none cannot be combined with other values");
    }
    const hintToken = params.get("id_token_hint");
    if (hintToken !== null) {
      const hint = await verifyIdTokenHint(hintToken, deps.client, deps.issuer);
      if (!hint) return fail("invalid_request", "id_token_hint is not a valid ID token of this provider");
      const session = await deps.currentSession(request);
      if (session && hint.sub !== session.userId) {
        // OIDC Core §3.1.2.1: the signed-in user is not the one the RP expects.
        if (prompts.has("none")) {
          return fail("login_required", "the signed-in user is not the id_token_hint's");
        }
        prompts.add("login");
      }
      params.delete("id_token_hint");
    }
    const offlineConsented =
      prompts.has("none") && (params.get("scope") ?? "").split(" ").includes("offline_access")
        ? await consentCoversOffline(deps, request, params.get("client_id"))
        : false;
    const scopeProblem = normaliseScope(params, registration, prompts, offlineConsented);
    if (scopeProblem) return fail("invalid_scope", scopeProblem);
    const maxAge = params.get("max_age");
    if (maxAge !== null) {
      if (!/^\d+$/.test(maxAge)) return fail("invalid_request", "max_age must be a non-negative integer");
      const createdAt = (await deps.currentSession(request))?.createdAt;
      if (createdAt !== undefined && Date.now() - createdAt > Number(maxAge) * 1000) {
        if (prompts.has("none")) return fail("login_required", "max_age requires a new login");
        prompts.add("login");
      }
      params.delete("max_age");
    }
    // One account per session, and GitHub creates accounts on first sign-in: both mean "sign in again".
    const login = prompts.has("login") || prompts.has("select_account") || prompts.has("create");
    const normalised = prompts.has("none")
      ? "none"
      : [login ? "login" : "", prompts.has("consent") ? "consent" : ""].filter(Boolean).join(" ");
    if (normalised) params.set("prompt", normalised);
    else params.delete("prompt");
  }
  const url = new URL(request.url);
  url.search = params.toString();
  const headers = new Headers(request.headers);
  headers.delete("content-type");
  headers.delete("content-length");
  const response = await forward(
    new Request(url, { method: request.method === "HEAD" ? "HEAD" : "GET", headers }),
  );
  return await asNavigation(response);
}

/**
 * Better Auth answers `{redirect, url}` as JSON when the request looks like a script's (Accept JSON or
 * Sec-Fetch headers): the code would be in a body. The service answers only with a redirect, never cached.
 */
async function asNavigation(response: Response): Promise<Response> {
  let target: string | undefined;
  if ((response.headers.get("content-type") ?? "").includes("application/json")) {
    const body = await response.clone().json().catch(() => undefined) as { url?: unknown } | undefined;
    if (typeof body?.url === "string") target = body.url;
  }
  const headers = new Headers(response.headers);
  headers.set("cache-control", "no-store");
  headers.set("pragma", "no-cache");
  if (target === undefined) return new Response(response.body, { status: response.status, headers });
  await response.body?.cancel();
  headers.delete("content-type");
  headers.delete("content-length");
  headers.set("location", target);
  return new Response(null, { status: 302, headers });
}

/**
 * Scope rules over 1.6.23's: an omitted `scope` means the client's scopes without `offline_access` (the
 * library would grant everything the client may have). `offline_access` (OIDC Core §11) is honoured when the
 * user approves it: the library shows the consent page whenever the stored consent does not cover every
 * requested scope, so it is kept for interactive requests and for first-party (skip-consent) clients; with
 * `prompt=none` no page can be shown, so it is kept only when a stored consent already covers it
 * (`offlineConsented`) and dropped otherwise. Returns a problem description, or undefined.
 */
function normaliseScope(
  params: URLSearchParams,
  registration: ClientRegistrationRow,
  prompts: Set<string>,
  offlineConsented: boolean,
): string | undefined {
  const requested = params.get("scope");
  let scopes = requested === null
    ? registration.scopes.filter((s) => s !== "offline_access")
    : requested.split(" ").filter(Boolean);
  if (requested !== null && scopes.length === 0) return "scope is empty";
  if (
    scopes.includes("offline_access") && prompts.has("none") && !registration.skipConsent && !offlineConsented
  ) {
    scopes = scopes.filter((s) => s !== "offline_access");
  }
  if (scopes.length === 0) return "no scope left to grant (offline_access needs the user's consent)";
  params.set("scope", scopes.join(" "));
  return undefined;
}

/** Whether the signed-in user's stored consent for `clientId` includes `offline_access`. */
async function consentCoversOffline(
  deps: ShimDeps,
  request: Request,
  clientId: string | null,
): Promise<boolean> {
  const session = await deps.currentSession(request);
  if (!session || !clientId) return false;
  const result = await deps.client.execute({
    sql:
      "SELECT scopes FROM oauth_consent WHERE user_id = ? AND client_id = ? ORDER BY updated_at DESC LIMIT 1",
    args: [session.userId, clientId],
  });
  const scopes = result.rows[0]?.scopes;
  if (scopes === undefined || scopes === null) return false;
  try {
    const list = JSON.parse(String(scopes));
    return Array.isArray(list) && list.includes("offline_access");
  } catch {
    return String(scopes).split(" ").includes("offline_access");
  }
}

/** What the authorization endpoint needs of a registered client. */
interface ClientRegistrationRow {
  /** The verified redirect URI of the request. */
  redirectUri: string;
  /** The scopes the client may ask for. */
  scopes: string[];
  /** A first-party client that skips the consent page. */
  skipConsent: boolean;
}

const DEFAULT_SCOPES = ["openid", "profile", "email", "offline_access", "groups"];

/**
 * The client's registration if `redirectUri` is registered for it: exact match, or, for a public client
 * only, a loopback IP literal with any port (RFC 8252 §7.3).
 */
async function verifiedRedirect(
  client: Client,
  clientId: string | null,
  redirectUri: string | null,
): Promise<ClientRegistrationRow | undefined> {
  if (!clientId || !redirectUri) return undefined;
  const row = await client.execute({
    sql: "SELECT redirect_uris, scopes, skip_consent, client_secret FROM oauth_client " +
      "WHERE client_id = ? AND COALESCE(disabled, 0) = 0",
    args: [clientId],
  });
  const found = row.rows[0];
  if (!found) return undefined;
  const parseList = (value: unknown): string[] | undefined => {
    try {
      const list = JSON.parse(String(value));
      return Array.isArray(list) ? list.map(String) : undefined;
    } catch {
      return undefined;
    }
  };
  const registered = parseList(found.redirect_uris);
  if (!registered) return undefined;
  const registration = {
    redirectUri,
    scopes: (found.scopes === null ? undefined : parseList(found.scopes)) ?? DEFAULT_SCOPES,
    skipConsent: Number(found.skip_consent ?? 0) === 1,
  };
  if (registered.includes(redirectUri)) return registration;
  if (found.client_secret !== null) return undefined;
  const withoutPort = (raw: string) => {
    try {
      const u = new URL(raw);
      if (u.hostname !== "127.0.0.1" && u.hostname !== "[::1]") return undefined;
      u.port = "";
      return u.href;
    } catch {
      return undefined;
    }
  };
  const target = withoutPort(redirectUri);
  return target && registered.some((r) => withoutPort(r) === target) ? registration : undefined;
}
