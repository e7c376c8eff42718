/**
 * The deployed configuration end to end in Chromium (issue 12): `AUTH_COOKIE_DOMAIN=.example.test`, https
 * everywhere, GitHub sign-in through a strict loopback stand-in. One HTTPS front on loopback (a throwaway
 * test certificate, trusted by Chromium through its SPKI hash) serves, by Host, the auth service
 * (auth.example.test), a relying party (app.example.test, openid-client), a second first-party app
 * (app2.example.test), an attacker's page on a sibling subdomain (blog.example.test) and GitHub's authorize
 * page (github.com); Chromium's host-resolver rules send every one of those names to that front. The
 * relying party's back channel calls the same handlers in-process; the service calls the stand-in's API over
 * loopback HTTP (AUTH_GITHUB_STAND_IN). Screenshots land in test-artifacts/ (gitignored).
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { chromium } from "playwright-core";
import { silentLogger } from "@switchyard/lib/log.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { createAuthApp } from "../../auth/app.tsx";
import { readAuthConfig } from "../../auth/config.ts";
import { openAuthDatabase } from "../../auth/better_auth/database.ts";
import { registerClient } from "../../auth/operations/register_client.ts";
import { makeTestCertificate } from "./support/tls.ts";
import { startGitHubStandIn } from "./support/github_stand_in.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../../test-artifacts", import.meta.url).pathname;
const AUTH = "https://auth.example.test";
const APP = "https://app.example.test";
const APP2 = "https://app2.example.test";
const BLOG = "https://blog.example.test";
const GITHUB_CLIENT_ID = "Iv1.switchyard-e2e";
const GITHUB_CLIENT_SECRET = "stand-in-client-secret-0123456789";

const PEER: Deno.ServeHandlerInfo = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 50000 },
  completed: Promise.resolve(),
};

function page(title: string, body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
    {
      headers: { "content-type": "text/html; charset=utf-8" },
    },
  );
}

/** The attacker's script on blog.example.test: every way a sibling might try to get a code, consent or token. */
function attackScript(clientId: string, challenge: string): string {
  const authorize = `${AUTH}/api/auth/oauth2/authorize?` + new URLSearchParams({
    client_id: clientId,
    redirect_uri: `${APP}/callback`,
    response_type: "code",
    scope: "openid profile email offline_access",
    prompt: "consent",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "stolen",
  });
  return `
const results = {};
async function attempt(name, url, init) {
  try {
    const response = await fetch(url, { credentials: "include", ...init });
    results[name] = { status: response.status, type: response.type, body: (await response.text()).slice(0, 300),
      location: response.headers.get("location") };
  } catch (error) {
    results[name] = { error: String(error) };
  }
}
(async () => {
  const json = { "content-type": "application/json", accept: "application/json" };
  await attempt("authorize-json", ${JSON.stringify(authorize)}, { headers: { accept: "application/json" } });
  await attempt("authorize-no-cors", ${JSON.stringify(authorize)}, { mode: "no-cors" });
  await attempt("authorize-manual", ${JSON.stringify(authorize)}, { redirect: "manual" });
  await attempt("consent", "${AUTH}/api/auth/oauth2/consent", { method: "POST", headers: json,
    body: JSON.stringify({ accept: true, oauth_query: "client_id=${clientId}&scope=openid" }) });
  await attempt("consent-page", "${AUTH}/consent", { method: "POST", mode: "no-cors",
    headers: { "content-type": "application/x-www-form-urlencoded" }, body: "decision=allow&oauth_query=client_id%3D${clientId}" });
  await attempt("get-consents", "${AUTH}/api/auth/oauth2/get-consents", {});
  await attempt("update-consent", "${AUTH}/api/auth/oauth2/update-consent", { method: "POST", headers: json,
    body: JSON.stringify({ id: "x", update: { scopes: ["openid", "offline_access"] } }) });
  await attempt("create-client", "${AUTH}/api/auth/oauth2/create-client", { method: "POST", headers: json,
    body: JSON.stringify({ redirect_uris: ["${BLOG}/steal"], client_name: "evil" }) });
  await attempt("sign-in-social", "${AUTH}/api/auth/sign-in/social", { method: "POST", headers: json,
    body: JSON.stringify({ provider: "github", callbackURL: "/sign-in" }) });
  await attempt("get-session", "${AUTH}/api/auth/get-session", {});
  document.getElementById("results").textContent = JSON.stringify(results);
})();`;
}

Deno.test({
  name:
    "deployed: GitHub sign-in → consent → tokens in Chromium; the .example.test session is shared; a sibling's script gets nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    assert.ok(
      await Deno.stat(CHROMIUM).then(() => true, () => false),
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
    );
    const cert = await makeTestCertificate();
    await using github = await startGitHubStandIn({
      clientId: GITHUB_CLIENT_ID,
      clientSecret: GITHUB_CLIENT_SECRET,
      callbackUrl: `${AUTH}/api/auth/callback/github`,
    });
    const dir = await Deno.makeTempDir({ prefix: "switchyard-deployed-e2e-" });
    const config = readAuthConfig({
      AUTH_LOCAL_MODE: "false",
      AUTH_BASE_URL: AUTH,
      AUTH_COOKIE_DOMAIN: ".example.test",
      AUTH_SECRET: "deployed-e2e-secret-0123456789abcdef0123456789",
      SOCIAL_CLIENT_ID: GITHUB_CLIENT_ID,
      SOCIAL_CLIENT_SECRET: GITHUB_CLIENT_SECRET,
      AUTH_GITHUB_ALLOW_ANY: "true",
      AUTH_CLIENT_IP: "socket",
      // The two apps are first-party; the blog, also on .example.test, is not.
      AUTH_FIRST_PARTY_ORIGINS: `${APP},${APP2}`,
      AUTH_GITHUB_STAND_IN: github.apiOrigin,
      AUTH_DATABASE_URL: `file:${dir}/auth.db`,
      LOG_LEVEL: "silent",
    });
    const database = await openAuthDatabase(config.AUTH_DATABASE_URL);
    await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
    const auth = createAuthApp(config, { logger: silentLogger, database });
    const registered = await registerClient(database, AUTH, {
      name: "App One",
      redirectUris: [`${APP}/callback`],
      enableEndSession: true,
    });
    const publicClient = await registerClient(database, AUTH, {
      name: "Public App",
      redirectUris: [`${APP}/callback`],
      public: true,
    });
    const count = async (sql: string) => Number((await database.client.execute(sql)).rows[0].n);

    // The relying party: openid-client over an in-process back channel to the same handlers.
    let dispatch: (request: Request) => Promise<Response> = () => Promise.resolve(new Response("starting"));
    const backChannel: client.CustomFetch = (url, init) =>
      dispatch(new Request(url, { ...init, body: init.body as BodyInit | undefined }));
    // Assigned once the front dispatches (discovery goes through it); the handlers below read it later.
    // deno-lint-ignore prefer-const
    let oidc!: client.Configuration;
    const pending = new Map<string, { verifier: string; nonce: string }>();
    const signedIn: { sub: string; email?: string; name?: string }[] = [];

    const relyingParty = async (request: Request): Promise<Response> => {
      const url = new URL(request.url);
      if (url.pathname === "/login") {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        const target = client.buildAuthorizationUrl(oidc, {
          redirect_uri: `${APP}/callback`,
          scope: "openid profile email offline_access",
          prompt: "consent",
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
          state,
          nonce,
        });
        return Response.redirect(target, 302);
      }
      if (url.pathname === "/callback") {
        const state = url.searchParams.get("state") ?? "";
        const flow = pending.get(state);
        if (!flow) return page("RP", "<h1>Unknown state</h1>");
        const tokens = await client.authorizationCodeGrant(oidc, url, {
          pkceCodeVerifier: flow.verifier,
          expectedState: state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims()!;
        signedIn.push({ sub: claims.sub, email: claims.email as string, name: claims.name as string });
        const refreshed = await client.refreshTokenGrant(oidc, tokens.refresh_token!);
        const info = await client.fetchUserInfo(oidc, refreshed.access_token, claims.sub);
        return page("RP", `<h1>Signed in as ${info.email}</h1>`);
      }
      return new Response("not found", { status: 404 });
    };

    // A second first-party app: its server forwards the shared cookie; its page asks with credentials.
    const secondApp = async (request: Request): Promise<Response> => {
      const cookie = request.headers.get("cookie") ?? "";
      const session = await dispatch(new Request(`${AUTH}/api/auth/get-session`, { headers: { cookie } }));
      const body = await session.json();
      const script = `fetch("${AUTH}/api/auth/get-session", { credentials: "include" })
        .then((r) => r.text()).then((t) => { document.getElementById("cors").textContent = t; })
        .catch((e) => { document.getElementById("cors").textContent = "error: " + e; });`;
      return page(
        "App Two",
        `<h1>${
          body?.user ? `Hello, ${body.user.name}` : "Not signed in"
        }</h1><pre id="cors"></pre><script>${script}</script>`,
      );
    };

    const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
    const blog = (request: Request): Response => {
      if (new URL(request.url).pathname !== "/attack") return new Response("not found", { status: 404 });
      return page(
        "Blog",
        `<h1>Totally harmless blog</h1><pre id="results"></pre><script>${
          attackScript(publicClient.client_id, challenge)
        }</script>`,
      );
    };

    // The Origin Chromium sends with the pages' own form posts (item 3: `Origin: null` under no-referrer).
    const formOrigins: string[] = [];
    dispatch = async (request: Request) => {
      const target = new URL(request.url);
      if (request.method === "POST" && ["/sign-in/github", "/consent"].includes(target.pathname)) {
        formOrigins.push(`${target.pathname} ${request.headers.get("origin")}`);
      }
      switch (target.hostname) {
        case "auth.example.test":
          return await auth.fetch(request, { info: PEER });
        case "app.example.test":
          return await relyingParty(request);
        case "app2.example.test":
          return await secondApp(request);
        case "blog.example.test":
          return blog(request);
        case "github.com":
          return await github.handle(request);
        default:
          return new Response("unknown host", { status: 421 });
      }
    };
    oidc = await client.discovery(
      new URL(`${AUTH}/api/auth`),
      registered.client_id,
      registered.client_secret,
      undefined,
      { [client.customFetch]: backChannel },
    );
    oidc[client.customFetch] = backChannel;
    const { promise: listening, resolve } = Promise.withResolvers<number>();
    const front = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: cert.certPem,
        key: cert.keyPem,
        onListen: (a) => resolve(a.port),
      },
      (request) => dispatch(request),
    );
    const port = await listening;

    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const userDataDir = await Deno.makeTempDir({ prefix: "switchyard-chromium-deployed-" });
    const hosts = [
      "auth.example.test",
      "app.example.test",
      "app2.example.test",
      "blog.example.test",
      "github.com",
    ];
    const browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1:${port}`).join(", ")}`,
        `--ignore-certificate-errors-spki-list=${cert.spkiSha256}`,
      ],
      viewport: { width: 390, height: 844 },
    });
    try {
      // 1. Sign in through GitHub (octocat, public email), consent, code, tokens.
      const tab = await browser.newPage();
      await tab.goto(`${APP}/login`);
      await tab.waitForURL((u) => u.origin === AUTH && u.pathname === "/sign-in");
      await tab.screenshot({ path: `${ARTIFACTS}/deployed-sign-in.png`, fullPage: true });
      await tab.getByRole("button", { name: "Continue with GitHub" }).click();
      await tab.waitForURL((u) => u.hostname === "github.com");
      assert.ok(await tab.getByText("Signed in as octocat").isVisible());
      await tab.getByRole("button", { name: "Authorize" }).click();
      await tab.waitForURL((u) => u.origin === AUTH && u.pathname === "/consent");
      assert.ok(await tab.getByRole("heading", { name: /App One/ }).isVisible());
      await tab.screenshot({ path: `${ARTIFACTS}/deployed-consent.png`, fullPage: true });
      await tab.getByRole("button", { name: "Allow" }).click();
      await tab.waitForURL((u) => u.origin === APP && u.pathname === "/callback");
      assert.equal(await tab.locator("h1").textContent(), "Signed in as octocat@github.example.test");
      assert.equal(signedIn.length, 1);
      assert.deepEqual(
        formOrigins,
        [`/sign-in/github ${AUTH}`, `/consent ${AUTH}`],
        "real Origin on form posts",
      );
      assert.equal(signedIn[0].email, "octocat@github.example.test");
      assert.equal(signedIn[0].name, "The Octocat");

      const cookies = await browser.cookies(AUTH);
      const session = cookies.find((c) => c.name === "__Secure-svc.session_token");
      assert.ok(session, `the shared session cookie is set: ${cookies.map((c) => c.name)}`);
      assert.equal(session.domain, ".example.test");
      assert.equal(session.secure, true);
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, "Lax");

      // 2. A second first-party app sees the session: server side (cookie) and from its page (CORS).
      const second = await browser.newPage();
      await second.goto(`${APP2}/`);
      assert.equal(await second.locator("h1").textContent(), "Hello, The Octocat");
      await second.waitForFunction('document.getElementById("cors")?.textContent !== ""');
      const corsText = await second.locator("#cors").textContent() ?? "";
      const corsBody = JSON.parse(corsText);
      assert.equal(corsBody.user.email, "octocat@github.example.test");
      assert.equal(corsBody.session.token, undefined, "no session token to a script");
      assert.ok(!corsText.includes(session.value.split(".")[0]), "the cookie's token appears nowhere");

      // 3. A script on a sibling subdomain, with the victim signed in, gets no code, consent, client or token.
      const codesBefore = await count(
        "SELECT count(*) AS n FROM verification WHERE value LIKE '%authorization_code%'",
      );
      const consentsBefore = await count("SELECT count(*) AS n FROM oauth_consent");
      const attacker = await browser.newPage();
      await attacker.goto(`${BLOG}/attack`);
      await attacker.waitForFunction('document.getElementById("results")?.textContent !== ""', undefined, {
        timeout: 15_000,
      });
      const results = JSON.parse(await attacker.locator("#results").textContent() ?? "{}") as Record<
        string,
        { status?: number; type?: string; body?: string; location?: string | null; error?: string }
      >;
      for (const [name, outcome] of Object.entries(results)) {
        const readable = outcome.body ?? "";
        assert.ok(
          !/code=|"url"|access_token|refresh_token|client_secret/.test(readable),
          `${name}: ${readable}`,
        );
        assert.ok(!/code=/.test(outcome.location ?? ""), `${name}: ${outcome.location}`);
        assert.ok(
          outcome.error !== undefined || outcome.type === "opaque" || outcome.type === "opaqueredirect" ||
            (outcome.status !== undefined && outcome.status >= 400),
          `${name} was refused or unreadable: ${JSON.stringify(outcome)}`,
        );
      }
      assert.ok(results["get-session"].error, "credentialed CORS is not offered to the blog");
      assert.equal(
        await count("SELECT count(*) AS n FROM verification WHERE value LIKE '%authorization_code%'"),
        codesBefore,
        "no authorization code was issued",
      );
      assert.equal(
        await count("SELECT count(*) AS n FROM oauth_consent"),
        consentsBefore,
        "no consent was added",
      );
      assert.equal(await count("SELECT count(*) AS n FROM oauth_client"), 2, "no client was created");
      await attacker.screenshot({ path: `${ARTIFACTS}/deployed-blog-attack.png`, fullPage: true });
    } finally {
      await browser.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }

    // 4. A GitHub user without a public email, in a fresh browser; then a cancelled authorization.
    github.signedInAs = "hidden-user";
    const freshDir = await Deno.makeTempDir({ prefix: "switchyard-chromium-deployed-" });
    const fresh = await chromium.launchPersistentContext(freshDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1:${port}`).join(", ")}`,
        `--ignore-certificate-errors-spki-list=${cert.spkiSha256}`,
      ],
    });
    try {
      const tab = await fresh.newPage();
      await tab.goto(`${APP}/login`);
      await tab.getByRole("button", { name: "Continue with GitHub" }).click();
      await tab.waitForURL((u) => u.hostname === "github.com");
      await tab.getByRole("button", { name: "Cancel" }).click();
      await tab.waitForURL((u) => u.origin === AUTH && u.pathname !== "/api/auth/callback/github");
      assert.ok(
        !(await fresh.cookies(AUTH)).some((c) => c.name === "__Secure-svc.session_token"),
        "a cancelled authorization signs nobody in",
      );
      await tab.screenshot({ path: `${ARTIFACTS}/deployed-cancelled.png`, fullPage: true });

      await tab.goto(`${APP}/login`);
      await tab.getByRole("button", { name: "Continue with GitHub" }).click();
      await tab.waitForURL((u) => u.hostname === "github.com");
      assert.ok(await tab.getByText("Signed in as hidden-user").isVisible());
      await tab.getByRole("button", { name: "Authorize" }).click();
      await tab.waitForURL((u) => u.origin === AUTH && u.pathname === "/consent");
      await tab.getByRole("button", { name: "Allow" }).click();
      await tab.waitForURL((u) => u.origin === APP && u.pathname === "/callback");
      assert.equal(await tab.locator("h1").textContent(), "Signed in as hidden@users.example.test");
      assert.equal(
        signedIn.at(-1)?.email,
        "hidden@users.example.test",
        "the primary email from /user/emails",
      );
    } finally {
      await fresh.close();
      await Deno.remove(freshDir, { recursive: true }).catch(() => {});
      await front.shutdown();
      database.client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
    assert.deepEqual(github.refusals, [], "the service sent GitHub only what GitHub accepts");
  },
});
