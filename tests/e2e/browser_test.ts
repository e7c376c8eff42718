/**
 * The whole local sign-in experience in a real browser: Debian's chromium driven by playwright-core. A tiny
 * relying party registers itself with `deno task oauth:register`, sends the browser to the authorize URL;
 * the browser clicks "Continue as local developer" and "Allow"; the RP exchanges the code with PKCE and
 * validates the ID token; then the RP sends the browser to end-session without a hint, the browser clicks
 * "Sign out" on the confirmation page and returns to the RP with its state. Screenshots land in
 * test-artifacts/ (gitignored).
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { chromium } from "playwright-core";
import { startAuthService } from "../auth/harness.ts";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = new URL("../../", import.meta.url).pathname;
const ARTIFACTS = `${ROOT}test-artifacts`;
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/** Registers the RP with the real command, as a developer would. */
async function registerWithCommand(databaseUrl: string, redirectUri: string, postLogoutUri: string) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "-q",
      "oauth:register",
      "--name",
      "E2E Relying Party",
      "--redirect-uri",
      redirectUri,
      "--post-logout-redirect-uri",
      postLogoutUri,
      "--enable-end-session",
      "--json",
    ],
    cwd: ROOT,
    env: { AUTH_DATABASE_URL: databaseUrl },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)) as { client_id: string; client_secret: string };
}

/** A relying party with /login and /callback, recording what it validated. */
async function startRelyingParty(issuer: string, databaseUrl: string) {
  const pending = new Map<string, { verifier: string; nonce: string }>();
  const results: { sub: string; email?: string }[] = [];
  let handler: (request: Request) => Promise<Response> = () => Promise.resolve(new Response("starting"));
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: (addr) => resolve(addr.port) },
    (request) => handler(request),
  );
  const origin = `http://127.0.0.1:${await promise}`;
  const redirectUri = `${origin}/callback`;
  const postLogoutUri = `${origin}/logged-out`;
  const logoutStates = new Set<string>();
  const registered = await registerWithCommand(databaseUrl, redirectUri, postLogoutUri);
  const as = await oauth.processDiscoveryResponse(
    new URL(issuer),
    await oauth.discoveryRequest(new URL(issuer), { algorithm: "oidc", ...INSECURE }),
  );
  const client: oauth.Client = { client_id: registered.client_id };
  const clientAuth = oauth.ClientSecretBasic(registered.client_secret);
  handler = async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/login") {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      pending.set(state, { verifier, nonce });
      const target = new URL(as.authorization_endpoint!);
      target.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid profile email offline_access",
        prompt: "consent",
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      }).toString();
      return Response.redirect(target, 302);
    }
    if (url.pathname === "/callback") {
      const state = url.searchParams.get("state") ?? "";
      const flow = pending.get(state);
      if (!flow) return new Response("unknown state", { status: 400 });
      const params = oauth.validateAuthResponse(as, client, url, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirectUri,
        flow.verifier,
        INSECURE,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: flow.nonce,
        requireIdToken: true,
      });
      const { payload } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(as.jwks_uri!)), {
        issuer,
        audience: client.client_id,
        algorithms: ["RS256"],
      });
      results.push({ sub: String(payload.sub), email: payload.email as string | undefined });
      return new Response(`<!doctype html><title>RP</title><h1>Signed in as ${payload.sub}</h1>`, {
        headers: { "content-type": "text/html" },
      });
    }
    if (url.pathname === "/logout") {
      const state = oauth.generateRandomState();
      logoutStates.add(state);
      const target = new URL(as.end_session_endpoint!);
      target.search = new URLSearchParams({
        client_id: client.client_id,
        post_logout_redirect_uri: postLogoutUri,
        state,
      }).toString();
      return Response.redirect(target, 302);
    }
    if (url.pathname === "/logged-out") {
      const known = logoutStates.delete(url.searchParams.get("state") ?? "");
      return new Response(
        `<!doctype html><title>RP</title><h1>${known ? "Signed out" : "Unknown state"}</h1>`,
        {
          headers: { "content-type": "text/html" },
        },
      );
    }
    return new Response("not found", { status: 404 });
  };
  return { origin, results, [Symbol.asyncDispose]: () => server.shutdown() };
}

Deno.test({
  name: "a browser signs in through the local developer account and the RP validates the ID token",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const exists = await Deno.stat(CHROMIUM).then(() => true, () => false);
    assert.ok(exists, `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
    await using svc = await startAuthService();
    await using rp = await startRelyingParty(svc.issuer, svc.config.AUTH_DATABASE_URL);
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const userDataDir = await Deno.makeTempDir({ prefix: "switchyard-chromium-" });
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
      viewport: { width: 390, height: 844 },
    });
    try {
      const page = await context.newPage();
      await page.goto(`${rp.origin}/login`);
      await page.waitForURL((url) => url.pathname === "/sign-in");
      await page.screenshot({ path: `${ARTIFACTS}/sign-in.png`, fullPage: true });
      await page.getByRole("button", { name: "Continue as local developer" }).click();
      await page.waitForURL((url) => url.pathname === "/consent");
      assert.ok(await page.getByRole("heading", { name: /E2E Relying Party/ }).isVisible());
      await page.screenshot({ path: `${ARTIFACTS}/consent.png`, fullPage: true });
      const overflow = await page.evaluate("document.documentElement.scrollWidth > window.innerWidth");
      assert.equal(
        overflow,
        false,
        "the consent page fits a 390 px phone screen without horizontal scrolling",
      );
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((url) => url.origin === rp.origin && url.pathname === "/callback");
      assert.equal(await page.locator("h1").textContent(), "Signed in as local-developer");
      assert.deepEqual(rp.results, [{ sub: "local-developer", email: "developer@localhost.test" }]);
      const cookies = await context.cookies(svc.url);
      const session = cookies.find((c) => c.name === "svc.session_token");
      assert.ok(session, "the host-only session cookie is set");
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, "Lax");

      await page.goto(`${rp.origin}/logout`);
      await page.waitForURL((url) => url.pathname === "/api/auth/oauth2/end-session");
      assert.ok(await page.getByText("E2E Relying Party asked to sign you out").isVisible());
      await page.screenshot({ path: `${ARTIFACTS}/sign-out.png`, fullPage: true });
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((url) => url.origin === rp.origin && url.pathname === "/logged-out");
      assert.equal(await page.locator("h1").textContent(), "Signed out", "the RP got its state back");
      const after = await context.cookies(svc.url);
      assert.equal(
        after.find((c) => c.name === "svc.session_token"),
        undefined,
        "the session cookie is gone",
      );
    } finally {
      await context.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
    for (const name of ["sign-in.png", "consent.png", "sign-out.png"]) {
      assert.ok((await Deno.stat(`${ARTIFACTS}/${name}`)).size > 1000, `${name} was written`);
    }
  },
});
