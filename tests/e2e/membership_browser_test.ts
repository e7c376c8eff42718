/**
 * Issue 25 in Chromium, deployed configuration (`AUTH_GITHUB_ALLOWED_TEAMS=ACME/platform`, odd casing on
 * purpose): a team member signs in through the GitHub stand-in and an openid-client relying party receives
 * the `groups` claim; a GitHub user outside the organisation, and an organisation member outside the team,
 * are refused on the sign-in page with the reason in plain words, without a session cookie or a session
 * row; and once the member leaves the team, the relying party's refresh fails within AUTH_MEMBERSHIP_TTL.
 * The same HTTPS front and host-resolver rules as tests/e2e/deployed_browser_test.ts.
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { type BrowserContext, chromium } from "playwright-core";
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
const GITHUB_CLIENT_ID = "Iv1.switchyard-membership-e2e";
const GITHUB_CLIENT_SECRET = "stand-in-client-secret-membership-e2e";
const SESSION_COOKIE = "__Secure-svc.session_token";
const PEER: Deno.ServeHandlerInfo = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 50000 },
  completed: Promise.resolve(),
};

function page(title: string, body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  );
}

Deno.test({
  name: "deployed in Chromium: a team member signs in with groups; outsiders are refused with the reason; " +
    "leaving the team ends refresh within the TTL",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    assert.ok(await Deno.stat(CHROMIUM).then(() => true, () => false), `${CHROMIUM} is missing`);
    const cert = await makeTestCertificate();
    await using github = await startGitHubStandIn({
      clientId: GITHUB_CLIENT_ID,
      clientSecret: GITHUB_CLIENT_SECRET,
      callbackUrl: `${AUTH}/api/auth/callback/github`,
    });
    const dir = await Deno.makeTempDir({ prefix: "switchyard-membership-e2e-" });
    const config = readAuthConfig({
      AUTH_LOCAL_MODE: "false",
      AUTH_BASE_URL: AUTH,
      AUTH_COOKIE_DOMAIN: ".example.test",
      AUTH_SECRET: "membership-e2e-secret-0123456789abcdef01234567",
      SOCIAL_CLIENT_ID: GITHUB_CLIENT_ID,
      SOCIAL_CLIENT_SECRET: GITHUB_CLIENT_SECRET,
      AUTH_CLIENT_IP: "socket",
      AUTH_GITHUB_ALLOWED_TEAMS: "ACME/platform",
      AUTH_MEMBERSHIP_TTL: "15m",
      AUTH_GITHUB_STAND_IN: github.apiOrigin,
      AUTH_DATABASE_URL: `file:${dir}/auth.db`,
      LOG_LEVEL: "silent",
    });
    const database = await openAuthDatabase(config.AUTH_DATABASE_URL);
    await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
    const clock = { now: Date.now() };
    const auth = createAuthApp(config, { logger: silentLogger, database, now: () => clock.now });
    const registered = await registerClient(database, AUTH, {
      name: "Team App",
      redirectUris: [`${APP}/callback`],
    });
    const count = async (sql: string) => Number((await database.client.execute(sql)).rows[0].n);

    let dispatch: (request: Request) => Promise<Response> = () => Promise.resolve(new Response("starting"));
    const backChannel: client.CustomFetch = (url, init) =>
      dispatch(new Request(url, { ...init, body: init.body as BodyInit | undefined }));
    // deno-lint-ignore prefer-const
    let oidc!: client.Configuration;
    const pending = new Map<string, { verifier: string; nonce: string }>();
    const signedIn: { sub: string; groups: unknown; refresh: string }[] = [];
    const relyingParty = async (request: Request): Promise<Response> => {
      const url = new URL(request.url);
      if (url.pathname === "/login") {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        return Response.redirect(
          client.buildAuthorizationUrl(oidc, {
            redirect_uri: `${APP}/callback`,
            scope: "openid profile email groups offline_access",
            prompt: "consent",
            code_challenge: await client.calculatePKCECodeChallenge(verifier),
            code_challenge_method: "S256",
            state,
            nonce,
          }),
          302,
        );
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
        signedIn.push({ sub: claims.sub, groups: claims.groups, refresh: tokens.refresh_token! });
        return page("RP", `<h1>Groups: ${JSON.stringify(claims.groups)}</h1>`);
      }
      return new Response("not found", { status: 404 });
    };
    dispatch = async (request: Request) => {
      switch (new URL(request.url).hostname) {
        case "auth.example.test":
          return await auth.fetch(request, { info: PEER });
        case "app.example.test":
          return await relyingParty(request);
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
    const hosts = ["auth.example.test", "app.example.test", "github.com"];
    const browser = await chromium.launch({
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
    /** One person's browser: starts at the RP, signs in on GitHub as `login`, clicks Authorize. */
    const attempt = async (login: string): Promise<{ context: BrowserContext; url: URL; text: string }> => {
      github.signedInAs = login;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const tab = await context.newPage();
      await tab.goto(`${APP}/login`);
      await tab.waitForURL((u) => u.origin === AUTH && u.pathname === "/sign-in");
      await tab.getByRole("button", { name: "Continue with GitHub" }).click();
      await tab.waitForURL((u) => u.hostname === "github.com");
      await tab.getByRole("button", { name: "Authorize" }).click();
      await tab.waitForURL((u) =>
        u.hostname !== "github.com" && !u.pathname.startsWith("/api/auth/callback")
      );
      return { context, url: new URL(tab.url()), text: await tab.locator("body").innerText() };
    };
    try {
      // A GitHub user in no organisation: refused, told why, no cookie, no session row.
      const mallory = await attempt("mallory");
      assert.equal(mallory.url.pathname, "/sign-in");
      assert.match(mallory.text, /not a member of the organisations or teams allowed to sign in here/);
      assert.ok(!(await mallory.context.cookies(AUTH)).some((c) => c.name === SESSION_COOKIE), "no cookie");
      await (await mallory.context.pages())[0].screenshot({ path: `${ARTIFACTS}/membership-refused.png` });
      assert.equal(await count("SELECT count(*) AS n FROM session"), 0, "no session row");
      await mallory.context.close();

      // A member of the organisation outside the allowed team: the team restriction holds.
      const bob = await attempt("bob");
      assert.equal(bob.url.pathname, "/sign-in");
      assert.match(bob.text, /not a member/);
      assert.ok(!(await bob.context.cookies(AUTH)).some((c) => c.name === SESSION_COOKIE));
      await bob.context.close();
      assert.equal(await count("SELECT count(*) AS n FROM session"), 0);

      // The team member: consent lists groups, the RP receives the groups claim.
      github.orgs.teamPadding = 120; // the team sits on GitHub's second page
      const alice = await attempt("alice");
      assert.equal(alice.url.pathname, "/consent");
      const consent = (await alice.context.pages())[0];
      assert.match(alice.text, /allowed organisations and teams you belong to/);
      await consent.screenshot({ path: `${ARTIFACTS}/membership-consent.png`, fullPage: true });
      await consent.getByRole("button", { name: "Allow" }).click();
      await consent.waitForURL((u) => u.origin === APP && u.pathname === "/callback");
      assert.equal(await consent.locator("h1").textContent(), 'Groups: ["acme/platform"]');
      assert.ok((await alice.context.cookies(AUTH)).some((c) => c.name === SESSION_COOKIE));
      assert.equal(await count("SELECT count(*) AS n FROM session"), 1);

      // Alice leaves the team: refresh still works from the cached check, then fails after the TTL.
      const { refresh } = signedIn.at(-1)!;
      const kept = await client.refreshTokenGrant(oidc, refresh);
      github.orgs.teams.set("alice", []);
      clock.now += 16 * 60_000;
      await assert.rejects(
        () => client.refreshTokenGrant(oidc, kept.refresh_token!),
        (error: client.ResponseBodyError) => error.error === "invalid_grant",
      );
      assert.equal(await count("SELECT count(*) AS n FROM session"), 0, "her sessions ended");
      await consent.goto(`${AUTH}/sign-in`);
      assert.doesNotMatch(await consent.locator("body").innerText(), /signed in as/i);
      const audit = await database.client.execute(
        "SELECT action, outcome, reason FROM svc_audit ORDER BY id",
      );
      assert.deepEqual(audit.rows.map((r) => `${r.action}:${r.outcome}:${r.reason ?? ""}`), [
        "sign_in:denied:not_a_member",
        "sign_in:denied:not_a_member",
        "sign_in:admitted:",
        "consent:success:allow openid profile email groups offline_access",
        "membership_revalidation:denied:not_a_member",
      ]);
      await alice.context.close();
    } finally {
      await browser.close();
      await front.shutdown();
      database.client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
    assert.deepEqual(github.refusals, [], "the service sent GitHub only what GitHub accepts");
  },
});
