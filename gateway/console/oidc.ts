/**
 * The console as an ordinary OpenID Connect relying party of the suite's auth service: discovery, an
 * authorization request with PKCE (S256), state and nonce, the callback's validation and code exchange
 * (oauth4webapi, already pinned for the auth conformance tests), and the ID token's signature checked against
 * the issuer's JWKS with jose (iss, aud, exp, nonce). Plain http is allowed for loopback issuers only.
 */
import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, customFetch, jwtVerify } from "jose";
import { CONSOLE_PATH, type ConsoleSettings } from "./settings.ts";

/** What a verified sign-in yields. */
export interface SignedInUser {
  /** Auth user id (`sub`). */
  sub: string;
  email?: string;
  name?: string;
  /** The raw ID token (kept server-side as the logout hint). */
  idToken: string;
}

/** A failed callback: a stable code and a message safe to show. */
export class SignInError extends Error {
  /** Stable code, for tests and logs. */
  readonly code: "state_mismatch" | "op_error" | "code_exchange" | "id_token";
  constructor(code: SignInError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The relying party for one console deployment. */
export class RelyingParty {
  #settings: ConsoleSettings;
  #fetch: typeof fetch;
  #as: Promise<oauth.AuthorizationServer> | undefined;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  // oauth4webapi's option types differ per request only in the body type of the custom fetch.
  // deno-lint-ignore no-explicit-any
  #options: any;

  /** `fetchImpl` reaches the OP (tests may pass their own). */
  constructor(settings: ConsoleSettings, fetchImpl: typeof fetch = fetch) {
    this.#settings = settings;
    this.#fetch = fetchImpl;
    const insecure = LOOPBACK.has(new URL(settings.issuer).hostname);
    this.#options = {
      [oauth.customFetch]: (url: string, init: RequestInit) => this.#fetch(url, init),
      ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    };
  }

  /** The redirect URI registered for the console. */
  get redirectUri(): string {
    return `${this.#settings.origin}${CONSOLE_PATH}/callback`;
  }

  /** Where the OP sends the browser after an RP-initiated logout. */
  get postLogoutUri(): string {
    return `${this.#settings.origin}${CONSOLE_PATH}/signed-out`;
  }

  #client(): oauth.Client {
    return { client_id: this.#settings.clientId };
  }

  /** The OP's metadata (discovered once; a failed discovery is retried on the next call). */
  metadata(): Promise<oauth.AuthorizationServer> {
    this.#as ??= (async () => {
      const issuer = new URL(this.#settings.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...this.#options });
      return await oauth.processDiscoveryResponse(issuer, response);
    })().catch((error) => {
      this.#as = undefined;
      throw error;
    });
    return this.#as;
  }

  /** A fresh authorization request: the URL to send the browser to and the secrets to keep. */
  async authorization(): Promise<{ url: URL; state: string; verifier: string; nonce: string }> {
    const as = await this.metadata();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: this.#settings.clientId,
      redirect_uri: this.redirectUri,
      response_type: "code",
      scope: "openid profile email",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    }).toString();
    return { url, state, verifier, nonce };
  }

  /** Validates the callback URL against the expected state, exchanges the code and verifies the ID token. */
  async complete(
    callback: URL,
    expected: { state: string; verifier: string; nonce: string },
  ): Promise<SignedInUser> {
    const as = await this.metadata();
    const client = this.#client();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, callback, expected.state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) {
        throw new SignInError("op_error", `the auth service refused the sign-in (${error.error})`);
      }
      throw new SignInError("state_mismatch", "the sign-in response does not match the request");
    }
    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(this.#settings.clientSecret),
        params,
        this.redirectUri,
        expected.verifier,
        this.#options,
      );
      tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: expected.nonce,
        requireIdToken: true,
      });
    } catch (error) {
      const nonce = error instanceof oauth.OperationProcessingError && /nonce/i.test(error.message);
      throw nonce
        ? new SignInError("id_token", "the ID token's nonce does not match the sign-in request")
        : new SignInError("code_exchange", "the authorization code was refused (expired or already used)");
    }
    const idToken = tokens.id_token!;
    this.#jwks ??= createRemoteJWKSet(new URL(as.jwks_uri!), {
      [customFetch]: (url: string, init: RequestInit) => this.#fetch(url, init),
    });
    try {
      const { payload } = await jwtVerify(idToken, this.#jwks, {
        issuer: as.issuer,
        audience: this.#settings.clientId,
        algorithms: ["RS256"],
      });
      if (payload.nonce !== expected.nonce) throw new Error("nonce");
      return {
        sub: String(payload.sub),
        email: typeof payload.email === "string" ? payload.email : undefined,
        name: typeof payload.name === "string" ? payload.name : undefined,
        idToken,
      };
    } catch {
      throw new SignInError("id_token", "the ID token failed verification against the issuer's keys");
    }
  }

  /** The OP's end-session URL for RP-initiated logout with the session's ID token as hint. */
  async endSessionUrl(idToken: string): Promise<URL | undefined> {
    const as = await this.metadata();
    if (!as.end_session_endpoint) return undefined;
    const url = new URL(as.end_session_endpoint);
    url.search = new URLSearchParams({
      id_token_hint: idToken,
      client_id: this.#settings.clientId,
      post_logout_redirect_uri: this.postLogoutUri,
    }).toString();
    return url;
  }
}
