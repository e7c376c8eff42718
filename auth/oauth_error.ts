/**
 * The one OAuth/OIDC error of the auth service: a code from the RFCs, a public description, and where it is
 * rendered. Every error answer of an OAuth/OIDC endpoint the service writes itself is made here:
 *
 * - JSON (`{"error","error_description"}`, `Cache-Control: no-store`, `Pragma: no-cache`) at the token,
 *   introspection, revocation, device authorization and userinfo endpoints (RFC 6749 §5.2);
 * - 401 with `WWW-Authenticate: Basic` for `invalid_client` when the client used HTTP Basic (§5.2), and
 *   `WWW-Authenticate: Bearer` at userinfo (RFC 6750 §3);
 * - a redirect carrying `error`, `error_description`, `state` and `iss` from the authorization endpoint
 *   (RFC 6749 §4.1.2.1, RFC 9207), or to the OP's own error page when the redirect URI is not trusted.
 *
 * Statuses come from one table ({@link OAUTH_ERRORS}), so a code cannot be answered with two statuses.
 * Non-OAuth routes (health, pages, the edge) render from auth/service_errors.ts instead.
 */

/** Every OAuth/OIDC error code the service answers with. */
export type OAuthErrorCode =
  // RFC 6749 §5.2 (token endpoint) and §4.1.2.1 (authorization endpoint)
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type"
  | "server_error"
  | "temporarily_unavailable"
  // RFC 7009 §2.2.1 (revocation)
  | "unsupported_token_type"
  // RFC 8628 §3.5 (device authorization grant)
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  // RFC 6750 §3.1 (bearer tokens: userinfo)
  | "invalid_token"
  | "insufficient_scope"
  // RFC 8707 §2 (resource indicators)
  | "invalid_target"
  // OIDC Core §3.1.2.6 (authentication error response)
  | "interaction_required"
  | "login_required"
  | "account_selection_required"
  | "consent_required"
  | "invalid_request_uri"
  | "invalid_request_object"
  | "request_not_supported"
  | "request_uri_not_supported"
  | "registration_not_supported";

/** What the table says about a code: the status it is answered with, and the text that defines it. */
export interface OAuthErrorEntry {
  /** HTTP status of a JSON answer. */
  readonly status: number;
  /** The specification section defining the code. */
  readonly defined: string;
}

/** The table of OAuth/OIDC error codes: status and source of each. */
export const OAUTH_ERRORS: Readonly<Record<OAuthErrorCode, OAuthErrorEntry>> = Object.freeze({
  invalid_request: { status: 400, defined: "RFC 6749 §5.2" },
  invalid_client: { status: 401, defined: "RFC 6749 §5.2" },
  invalid_grant: { status: 400, defined: "RFC 6749 §5.2" },
  unauthorized_client: { status: 400, defined: "RFC 6749 §5.2" },
  unsupported_grant_type: { status: 400, defined: "RFC 6749 §5.2" },
  invalid_scope: { status: 400, defined: "RFC 6749 §5.2" },
  access_denied: { status: 400, defined: "RFC 6749 §4.1.2.1, RFC 8628 §3.5" },
  unsupported_response_type: { status: 400, defined: "RFC 6749 §4.1.2.1" },
  server_error: { status: 500, defined: "RFC 6749 §4.1.2.1" },
  temporarily_unavailable: { status: 503, defined: "RFC 6749 §4.1.2.1" },
  unsupported_token_type: { status: 400, defined: "RFC 7009 §2.2.1" },
  authorization_pending: { status: 400, defined: "RFC 8628 §3.5" },
  slow_down: { status: 400, defined: "RFC 8628 §3.5" },
  expired_token: { status: 400, defined: "RFC 8628 §3.5" },
  invalid_token: { status: 401, defined: "RFC 6750 §3.1" },
  insufficient_scope: { status: 403, defined: "RFC 6750 §3.1" },
  invalid_target: { status: 400, defined: "RFC 8707 §2" },
  interaction_required: { status: 400, defined: "OIDC Core §3.1.2.6" },
  login_required: { status: 400, defined: "OIDC Core §3.1.2.6" },
  account_selection_required: { status: 400, defined: "OIDC Core §3.1.2.6" },
  consent_required: { status: 400, defined: "OIDC Core §3.1.2.6" },
  invalid_request_uri: { status: 400, defined: "OIDC Core §3.1.2.6" },
  invalid_request_object: { status: 400, defined: "OIDC Core §3.1.2.6" },
  request_not_supported: { status: 400, defined: "OIDC Core §3.1.2.6" },
  request_uri_not_supported: { status: 400, defined: "OIDC Core §3.1.2.6" },
  registration_not_supported: { status: 400, defined: "OIDC Core §3.1.2.6" },
});

/** How the client is challenged on a 401/403: HTTP Basic (client authentication) or a bearer realm. */
export type OAuthChallenge = { scheme: "basic" } | { scheme: "bearer"; realm: string };

/** Options for {@link OAuthError}. */
export interface OAuthErrorOptions {
  /** Adds `WWW-Authenticate` (Basic for `invalid_client` over HTTP Basic; Bearer at resource endpoints). */
  challenge?: OAuthChallenge;
  /** Private detail for logs; never rendered. */
  detail?: string;
  /** Extra response headers (e.g. `Retry-After` with `temporarily_unavailable`). */
  headers?: Record<string, string>;
}

/** An OAuth/OIDC error: a code of {@link OAUTH_ERRORS} and a description safe to show to the client. */
export class OAuthError extends Error {
  /** The RFC error code. */
  readonly code: OAuthErrorCode;
  /** The public `error_description`. */
  readonly description: string;
  /** HTTP status, from {@link OAUTH_ERRORS}. */
  readonly status: number;
  /** The `WWW-Authenticate` challenge, if any. */
  readonly challenge?: OAuthChallenge;
  /** Private detail for logs only. */
  readonly detail?: string;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(code: OAuthErrorCode, description: string, options: OAuthErrorOptions = {}) {
    super(`${code}: ${description}`);
    this.name = "OAuthError";
    this.code = code;
    this.description = description;
    this.status = OAUTH_ERRORS[code].status;
    this.challenge = options.challenge;
    this.detail = options.detail;
    this.headers = options.headers;
  }

  /** The JSON answer (RFC 6749 §5.2): never cached, with the challenge when there is one. */
  toResponse(): Response {
    const headers = new Headers({
      ...this.headers,
      "content-type": "application/json",
      "cache-control": "no-store",
      pragma: "no-cache",
    });
    const challenge = challengeHeader(this.challenge, this.code);
    if (challenge) headers.set("www-authenticate", challenge);
    return new Response(JSON.stringify({ error: this.code, error_description: this.description }), {
      status: this.status,
      headers,
    });
  }

  /**
   * The authorization endpoint's answer (RFC 6749 §4.1.2.1): a 302 to `redirectUri` with `error`,
   * `error_description`, `state` when the request had one, and `iss` (RFC 9207). Only for a redirect URI
   * already verified as registered for the client.
   */
  toRedirect(redirectUri: string | URL, state: string | null, issuer: string): Response {
    const target = new URL(redirectUri);
    target.searchParams.set("error", this.code);
    target.searchParams.set("error_description", this.description);
    if (state !== null) target.searchParams.set("state", state);
    target.searchParams.set("iss", issuer);
    return new Response(null, {
      status: 302,
      headers: { location: target.href, "cache-control": "no-store" },
    });
  }

  /**
   * A 302 to the OP's own error page `pageUrl` (`?error=…&error_description=…`): the authorization
   * endpoint's answer when the redirect URI cannot be trusted (RFC 6749 §4.1.2.1, first paragraph).
   */
  toErrorPage(pageUrl: string | URL): Response {
    const target = new URL(pageUrl);
    target.searchParams.set("error", this.code);
    target.searchParams.set("error_description", this.description);
    return new Response(null, {
      status: 302,
      headers: { location: target.href, "cache-control": "no-store" },
    });
  }
}

function challengeHeader(challenge: OAuthChallenge | undefined, code: OAuthErrorCode): string | undefined {
  if (!challenge) return undefined;
  if (challenge.scheme === "basic") return 'Basic realm="oauth", charset="UTF-8"';
  return `Bearer realm="${challenge.realm}", error="${code}"`;
}

/** The JSON answer for `code` (the common case: `oauthError("invalid_grant", "…")`). */
export function oauthError(code: OAuthErrorCode, description: string, options?: OAuthErrorOptions): Response {
  return new OAuthError(code, description, options).toResponse();
}

/** RFC 6749 §5.2 `invalid_client`: 401, with `WWW-Authenticate: Basic` when the client used HTTP Basic. */
export function invalidClientResponse(description: string, basic: boolean): Response {
  return oauthError("invalid_client", description, basic ? { challenge: { scheme: "basic" } } : undefined);
}

/**
 * RFC 6750 §3 bearer challenge of a protected resource. With no `error` (the request carried no token,
 * §3.1), the answer is a bare 401 with the realm and no body.
 */
export function bearerChallenge(
  realm: string,
  error?: { code: "invalid_token" | "insufficient_scope"; description: string },
): Response {
  if (error) return oauthError(error.code, error.description, { challenge: { scheme: "bearer", realm } });
  return new Response(null, {
    status: 401,
    headers: {
      "cache-control": "no-store",
      pragma: "no-cache",
      "www-authenticate": `Bearer realm="${realm}"`,
    },
  });
}
