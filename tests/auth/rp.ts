/** Relying-party helpers over oauth4webapi v3 for the conformance tests. */
import * as oauth from "oauth4webapi";
import { authorizeInBrowser, Browser } from "./harness.ts";

/** Options that let oauth4webapi talk to the loopback http service. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/** Discovers and validates the authorization server metadata of `issuer`. */
export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const response = await oauth.discoveryRequest(url, { algorithm: "oidc", ...INSECURE });
  return await oauth.processDiscoveryResponse(url, response);
}

/** One prepared authorization request. */
export interface PreparedAuthorization {
  /** The URL to send the browser to. */
  url: URL;
  /** PKCE verifier. */
  verifier: string;
  /** Expected state. */
  state: string;
  /** Expected nonce. */
  nonce: string;
}

/** Builds an authorization URL with PKCE S256, state and nonce; `extra` sets or (with null) removes params. */
export async function prepareAuthorization(
  as: oauth.AuthorizationServer,
  clientId: string,
  redirectUri: string,
  extra: Record<string, string | null> = {},
): Promise<PreparedAuthorization> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", "openid profile email offline_access");
  // OIDC Core §11: offline_access after the user's consent (prompt=consent asks again every time).
  url.searchParams.set("prompt", "consent");
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  for (const [key, value] of Object.entries(extra)) {
    if (value === null) url.searchParams.delete(key);
    else url.searchParams.set(key, value);
  }
  return { url, verifier, state, nonce };
}

/** Everything a completed code flow yields. */
export interface CodeFlowResult {
  /** The validated token response. */
  tokens: oauth.TokenEndpointResponse;
  /** Validated ID token claims. */
  claims: oauth.IDToken;
  /** The authorization response parameters (code, state, iss). */
  params: URLSearchParams;
  /** The prepared request. */
  prepared: PreparedAuthorization;
}

/** Runs authorize (browser) → callback validation → code exchange → ID token validation. */
export async function runCodeFlow(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  clientAuth: oauth.ClientAuth,
  redirectUri: string,
  browser = new Browser(),
): Promise<CodeFlowResult> {
  const prepared = await prepareAuthorization(as, client.client_id, redirectUri);
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, redirectUri);
  const params = oauth.validateAuthResponse(as, client, callback, prepared.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    redirectUri,
    prepared.verifier,
    INSECURE,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: prepared.nonce,
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  return { tokens, claims, params, prepared };
}

/** Posts a raw form to an endpoint (for negative cases the libraries refuse to send). */
export function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** HTTP Basic header for client credentials (form-urlencoded first, RFC 6749 §2.3.1). */
export function basic(id: string, secret: string): string {
  return `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;
}

/** {@link runCodeFlow} for a registered confidential client authenticating at the token endpoint with HTTP Basic. */
export function runBasicCodeFlow(
  as: oauth.AuthorizationServer,
  registered: { client_id: string; client_secret?: string },
  redirectUri: string,
  browser = new Browser(),
): Promise<CodeFlowResult> {
  return runCodeFlow(
    as,
    { client_id: registered.client_id },
    oauth.ClientSecretBasic(registered.client_secret!),
    redirectUri,
    browser,
  );
}
