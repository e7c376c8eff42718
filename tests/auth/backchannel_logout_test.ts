/**
 * OIDC Back-Channel Logout 1.0 (issue 25): `sid` in ID tokens, discovery, registration, and a signed
 * `logout_token` POSTed to every relying party with a live grant when a session ends (sign-out, end-session,
 * `auth:sessions revoke`, a replay revoking a grant), verified with jose claim by claim; a receiver that
 * hangs or fails never blocks the sign-out, is retried with backoff, and the token never reaches a log; a
 * third-party RP (express-openid-connect's `backchannelLogout`) verifies and accepts the token.
 */
import assert from "node:assert/strict";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from "jose";
import { createLogger } from "@switchyard/lib/log.ts";
import { type AuthService, Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, runBasicCodeFlow } from "./rp.ts";
import { revokeUserSessions } from "../../auth/operations/sessions.ts";
import type { DeliveryEvent } from "../../auth/logout/delivery.ts";
import { BACKCHANNEL_LOGOUT_EVENT } from "../../auth/logout/logout_token.ts";
import { main as clientsMain } from "../../auth/cli/clients.ts";
import { showClient, updateClient } from "../../auth/operations/clients.ts";
import { main as registerMain } from "../../auth/cli/register.ts";
import { disableUser } from "../../auth/operations/users.ts";
import {
  BASE,
  codeFlow,
  Jar,
  payloadOf,
  signInWithGitHub,
  startDeployed,
  tokenRequest,
} from "./membership_support.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

/** A relying party's back-channel logout endpoint on a free port: records POSTs, answers as told. */
async function receiver() {
  const received: { contentType: string | null; logoutToken: string | null; at: number }[] = [];
  let behaviour: "ok" | "fail" | "hang" = "ok";
  const hanging: (() => void)[] = [];
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: (a) => resolve(a.port) },
    async (r) => {
      const body = new URLSearchParams(await r.text());
      received.push({
        contentType: r.headers.get("content-type"),
        logoutToken: body.get("logout_token"),
        at: Date.now(),
      });
      if (behaviour === "hang") {
        await new Promise<void>((done) => hanging.push(done));
        return new Response(null, { status: 200 });
      }
      return new Response(null, {
        status: behaviour === "ok" ? 200 : 500,
        headers: { "cache-control": "no-store" },
      });
    },
  );
  const url = `http://127.0.0.1:${await listening}/backchannel-logout`;
  return {
    url,
    received,
    set(next: "ok" | "fail" | "hang") {
      behaviour = next;
    },
    async [Symbol.asyncDispose]() {
      for (const done of hanging) done();
      await server.shutdown();
    },
  };
}

/** A service, a client registered for back-channel logout, and a completed code flow in a browser. */
async function signedIn(svc: AuthService, uri: string, sessionRequired = false) {
  const reg = await svc.register({
    redirectUris: [REDIRECT],
    backchannelLogoutUri: uri,
    backchannelLogoutSessionRequired: sessionRequired,
  });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const flow = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  return { reg, as, browser, flow };
}

async function signOut(svc: AuthService, browser: Browser): Promise<Response> {
  return await browser.request(`${svc.url}/api/auth/sign-out`, {
    method: "POST",
    headers: { origin: svc.url, "content-type": "application/json" },
    body: "{}",
  });
}

/** Verifies a logout token as OIDC Back-Channel Logout 1.0 §2.6 tells an RP to, claim by claim. */
async function verifyLogoutToken(svc: AuthService, token: string, clientId: string) {
  const header = decodeProtectedHeader(token);
  assert.equal(header.typ, "logout+jwt", "explicitly typed (§2.4)");
  assert.equal(header.alg, "RS256");
  assert.ok(header.kid, "kid names an ID-token signing key");
  const jwks = createRemoteJWKSet(new URL(`${svc.issuer}/jwks`));
  const { payload } = await jwtVerify(token, jwks, {
    issuer: svc.issuer,
    audience: clientId,
    typ: "logout+jwt",
    algorithms: ["RS256"],
    requiredClaims: ["iss", "aud", "iat", "exp", "jti", "events"],
  });
  assert.deepEqual(payload.events, { [BACKCHANNEL_LOGOUT_EVENT]: {} }, "the back-channel logout event");
  assert.ok(payload.sub || payload.sid, "sub and/or sid");
  assert.equal("nonce" in payload, false, "no nonce (§2.4)");
  assert.ok(Math.abs(payload.iat! - Date.now() / 1000) < 30, "iat is now");
  assert.ok(payload.exp! > payload.iat! && payload.exp! - payload.iat! <= 300, "short-lived");
  assert.match(payload.jti!, /^[0-9a-f-]{36}$/);
  return payload;
}

Deno.test("discovery advertises back-channel logout; every ID token carries sid, also on refresh", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] }); // no end-session, no back-channel
  const as = await discover(svc.issuer);
  assert.equal(as.backchannel_logout_supported, true);
  assert.equal(as.backchannel_logout_session_supported, true);
  const browser = new Browser();
  const flow = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  const session = await (await browser.request(`${svc.url}/api/auth/get-session`)).json();
  assert.equal(flow.claims.sid, session.session.id, "sid names the central session");
  const refreshed = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: flow.tokens.refresh_token!,
  }, { authorization: basic(reg.client_id, reg.client_secret!) });
  const body = await refreshed.json();
  const verified = await jwtVerify(body.id_token, createRemoteJWKSet(new URL(as.jwks_uri!)), {
    issuer: svc.issuer,
    audience: reg.client_id,
  });
  assert.equal(verified.payload.sid, session.session.id);
});

Deno.test("sign-out sends the RP a logout token that jose verifies claim by claim, in the background", async () => {
  await using rp = await receiver();
  const events: DeliveryEvent[] = [];
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => void lines.push(line) });
  await using svc = await startAuthService({}, "127.0.0.1", logger, {
    backchannel: {
      onDelivery: (e) => void events.push(e),
    },
  });
  const { reg, browser, flow } = await signedIn(svc, rp.url, true);
  const signedOut = await signOut(svc, browser);
  assert.equal(signedOut.status, 200);
  await signedOut.body?.cancel();
  await svc.logoutDelivery.idle();
  assert.equal(rp.received.length, 1, "one logout token for the one session");
  const [request] = rp.received;
  assert.match(request.contentType ?? "", /^application\/x-www-form-urlencoded/);
  const claims = await verifyLogoutToken(svc, request.logoutToken!, reg.client_id);
  assert.equal(claims.sid, flow.claims.sid, "sid matches the ID token's");
  assert.equal(claims.sub, flow.claims.sub, "sub matches the ID token's");
  assert.deepEqual(
    events.map((e) => [e.clientId, e.reason, e.outcome, e.status]),
    [[reg.client_id, "sign_out", "delivered", 200]],
  );
  const audited = await svc.database.client.execute(
    "SELECT outcome, user_id, client_id, actor, reason FROM svc_audit WHERE action = 'backchannel_logout'",
  );
  assert.deepEqual(
    audited.rows.map((r) => [r.outcome, r.user_id, r.client_id, r.actor, r.reason]),
    [["success", flow.claims.sub, reg.client_id, "service", "sign_out delivered 200"]],
    "the delivery is in the audit log",
  );
  const logged = lines.join("\n");
  assert.match(logged, /back-channel logout delivered/);
  assert.ok(!logged.includes(request.logoutToken!), "the token is never logged");
  assert.ok(!logged.includes(request.logoutToken!.split(".")[2]), "nor its signature");
});

Deno.test("a hanging or failing receiver never blocks the sign-out; delivery retries with backoff until it succeeds", async () => {
  await using rp = await receiver();
  rp.set("hang");
  const events: DeliveryEvent[] = [];
  await using svc = await startAuthService({}, "127.0.0.1", undefined, {
    backchannel: {
      timeoutMs: 300,
      backoffMs: 100,
      onDelivery: (e) => void events.push(e),
    },
  });
  const { browser } = await signedIn(svc, rp.url);
  const started = performance.now();
  const signedOut = await signOut(svc, browser);
  const took = performance.now() - started;
  assert.equal(signedOut.status, 200);
  await signedOut.body?.cancel();
  assert.ok(took < 250, `sign-out answered in ${took.toFixed(0)} ms while the receiver hangs`);
  // First attempt times out, the next gets a 500, then the receiver recovers.
  while (events.length < 1) await new Promise((r) => setTimeout(r, 20));
  rp.set("fail");
  while (events.length < 2) await new Promise((r) => setTimeout(r, 20));
  rp.set("ok");
  while (!events.some((e) => e.outcome === "delivered")) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(events.map((e) => e.outcome), ["retrying", "retrying", "delivered"]);
  assert.match(events[0].error ?? "", /no answer within 300 ms/);
  assert.equal(events[1].status, 500);
  assert.ok(rp.received[2].at - rp.received[1].at >= 150, "the second retry waited longer (backoff)");
  const tokens = rp.received.map((r) => r.logoutToken);
  assert.equal(new Set(tokens).size, 3, "each attempt signs a fresh token (new jti)");
});

Deno.test("a receiver that keeps failing is given up after the retry period, and the outcome says so", async () => {
  await using rp = await receiver();
  rp.set("fail");
  const events: DeliveryEvent[] = [];
  await using svc = await startAuthService({}, "127.0.0.1", undefined, {
    backchannel: {
      backoffMs: 50,
      retryForMs: 400,
      onDelivery: (e) => void events.push(e),
    },
  });
  const { browser } = await signedIn(svc, rp.url);
  await (await signOut(svc, browser)).body?.cancel();
  while (!events.some((e) => e.outcome === "failed")) await new Promise((r) => setTimeout(r, 20));
  assert.ok(events.length >= 2 && events.length < 12, `bounded attempts: ${events.length}`);
  const row = await svc.database.client.execute("SELECT done_at, outcome FROM svc_backchannel_outbox");
  assert.equal(row.rows.length, 1);
  assert.ok(row.rows[0].done_at !== null);
  assert.match(String(row.rows[0].outcome), /^failed: receiver answered 500/);
});

Deno.test("auth:sessions revoke (the shared revocation) and a refresh replay send logout tokens; other RPs hear nothing", async () => {
  await using rp = await receiver();
  await using svc = await startAuthService();
  const { reg, as, flow } = await signedIn(svc, rp.url);
  const other = await svc.register({ redirectUris: [REDIRECT] }); // no back-channel URI
  await runBasicCodeFlow(as, other, REDIRECT, new Browser());
  // A replay of a rotated refresh token revokes the grant: its RP hears of it.
  const auth = basic(reg.client_id, reg.client_secret!);
  const refresh = (token: string) =>
    postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: token }, {
      authorization: auth,
    });
  const rotated = await (await refresh(flow.tokens.refresh_token!)).json();
  const replay = await refresh(flow.tokens.refresh_token!);
  assert.equal(replay.status, 400);
  await replay.body?.cancel();
  await svc.logoutDelivery.idle();
  assert.equal(rp.received.length, 1, "the replay's revocation");
  const first = await verifyLogoutToken(svc, rp.received[0].logoutToken!, reg.client_id);
  assert.equal(first.sid, flow.claims.sid);
  assert.ok(rotated.refresh_token);
  // A second sign-in, then auth:sessions revoke for the user (as the CLI does, in another process: the
  // service picks the queued logout up when kicked or polled).
  const second = await runBasicCodeFlow(as, reg, REDIRECT, new Browser());
  const result = await revokeUserSessions(svc.database.client, "local-developer");
  assert.ok(result.sessions >= 1);
  svc.logoutDelivery.kick();
  await svc.logoutDelivery.idle();
  const reasons = await svc.database.client.execute(
    "SELECT reason, outcome FROM svc_backchannel_outbox ORDER BY created_at",
  );
  assert.deepEqual(reasons.rows.map((r) => [r.reason, r.outcome]).slice(0, 1), [[
    "token_replay",
    "delivered",
  ]]);
  assert.ok(reasons.rows.some((r) => r.reason === "sessions_revoked" && r.outcome === "delivered"));
  const last = await verifyLogoutToken(svc, rp.received.at(-1)!.logoutToken!, reg.client_id);
  assert.equal(last.sid, second.claims.sid, "the revoked session is named");
  const clients = new Set(
    await Promise.all(
      rp.received.map(async (r) => (await verifyLogoutToken(svc, r.logoutToken!, reg.client_id)).aud),
    ),
  );
  assert.deepEqual([...clients], [reg.client_id], "only the registered RP is notified");
});

Deno.test("a poll picks up logouts another process queued", async () => {
  await using rp = await receiver();
  await using svc = await startAuthService({}, "127.0.0.1", undefined, { backchannel: { pollMs: 50 } });
  await signedIn(svc, rp.url);
  await revokeUserSessions(svc.database.client, "local-developer");
  const deadline = Date.now() + 5000;
  while (rp.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(rp.received.length, 1);
});

Deno.test("oauth:clients update sets, shows and removes a back-channel logout URI, checked like redirect URIs", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const log = console.log;
    const error = console.error;
    console.log = (line: string) => out.push(line);
    console.error = (line: string) => err.push(line);
    try {
      return { code: await clientsMain(args, env), out: out.join("\n"), err: err.join("\n") };
    } finally {
      console.log = log;
      console.error = error;
    }
  };
  const bad = await run(["update", reg.client_id, "--backchannel-logout-uri", "http://rp.example/logout"]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--backchannel-logout-uri http:\/\/rp.example\/logout must use https/);
  const set = await run([
    "update",
    reg.client_id,
    "--backchannel-logout-uri",
    "https://rp.example/logout",
    "--backchannel-logout-session-required",
    "--json",
  ]);
  assert.equal(set.code, 0, set.err);
  const info = JSON.parse(set.out);
  assert.equal(info.backchannel_logout_uri, "https://rp.example/logout");
  assert.equal(info.backchannel_logout_session_required, true);
  const removed = await run(["update", reg.client_id, "--backchannel-logout-uri", "none", "--json"]);
  assert.equal(JSON.parse(removed.out).backchannel_logout_uri, null);
  const orphan = await run(["update", reg.client_id, "--backchannel-logout-session-required"]);
  assert.equal(orphan.code, 1);
  assert.match(orphan.err, /needs a --backchannel-logout-uri/);
});

/** Starts tests/auth/express_rp.ts and reads its JSON lines. */
async function expressRp(issuer: string, clientId: string, clientSecret: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./express_rp.ts", import.meta.url).pathname, issuer, clientId, clientSecret],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const seen: Record<string, string>[] = [];
  let buffer = "";
  let ended = false;
  const pump = (async () => {
    while (true) {
      const { value, done } = await lines.read();
      if (done) break;
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        seen.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    }
    ended = true;
  })();
  const until = async (found: () => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!found()) {
      if (ended || Date.now() > deadline) throw new Error(`express RP: no ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await until(() => seen.some((l) => l.url), "url");
  return {
    url: seen.find((l) => l.url)!.url,
    seen,
    until,
    async [Symbol.asyncDispose]() {
      child.kill();
      await child.status;
      await pump;
    },
  };
}

Deno.test("a third-party RP (express-openid-connect backchannelLogout) accepts the logout token and ends the session", async () => {
  const events: DeliveryEvent[] = [];
  await using svc = await startAuthService({}, "127.0.0.1", undefined, {
    backchannel: {
      onDelivery: (e) => void events.push(e),
    },
  });
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  await using rp = await expressRp(svc.issuer, reg.client_id, reg.client_secret!);
  await updateClient(svc.database.client, reg.client_id, {
    backchannelLogoutUri: `${rp.url}/backchannel-logout`,
    backchannelLogoutSessionRequired: true,
  });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const flow = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  await (await signOut(svc, browser)).body?.cancel();
  await svc.logoutDelivery.idle();
  await rp.until(() => rp.seen.some((l) => l.stored), "logout store entry");
  assert.deepEqual(
    rp.seen.filter((l) => l.stored).map((l) => l.stored).sort(),
    [`${svc.issuer}|${flow.claims.sid}`, `${svc.issuer}|${flow.claims.sub}`].sort(),
    "the RP marked the session (sid) and the user (sub) logged out",
  );
  assert.deepEqual(events.map((e) => [e.outcome, e.status]), [["delivered", 204]], "the RP answered 204");
  // The RP does check: the same claims signed by another key are refused.
  const { privateKey } = await generateKeyPair("RS256");
  const forged = await new SignJWT({
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    sid: "forged",
    jti: crypto.randomUUID(),
  }).setProtectedHeader({
    alg: "RS256",
    typ: "logout+jwt",
    kid: decodeProtectedHeader(flow.tokens.id_token!).kid,
  })
    .setIssuer(svc.issuer).setAudience(reg.client_id).setIssuedAt().setExpirationTime("2m").sign(privateKey);
  const refused = await postForm(`${rp.url}/backchannel-logout`, { logout_token: forged });
  assert.equal(refused.status, 400);
  await refused.body?.cancel();
});

Deno.test("oauth:register takes --backchannel-logout-uri and --backchannel-logout-session-required", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}`, AUTH_BASE_URL: svc.url };
  const capture = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const [log, error] = [console.log, console.error];
    console.log = (line: string) => out.push(line);
    console.error = (line: string) => err.push(line);
    try {
      return { code: await registerMain(args, env), out: out.join("\n"), err: err.join("\n") };
    } finally {
      [console.log, console.error] = [log, error];
    }
  };
  const base = ["--name", "RP", "--redirect-uri", REDIRECT];
  const orphan = await capture([...base, "--backchannel-logout-session-required"]);
  assert.equal(orphan.code, 1);
  assert.match(orphan.err, /--backchannel-logout-session-required needs --backchannel-logout-uri/);
  const fragment = await capture([...base, "--backchannel-logout-uri", "https://rp.example/logout#x"]);
  assert.equal(fragment.code, 1);
  assert.match(
    fragment.err,
    /--backchannel-logout-uri https:\/\/rp.example\/logout#x must not contain a fragment/,
  );
  const ok = await capture([
    ...base,
    "--backchannel-logout-uri",
    "https://rp.example/logout",
    "--backchannel-logout-session-required",
    "--json",
  ]);
  assert.equal(ok.code, 0, ok.err);
  const { client_id } = JSON.parse(ok.out);
  const shown = await showClient(svc.database.client, client_id);
  assert.equal(shown.backchannel_logout_uri, "https://rp.example/logout");
  assert.equal(shown.backchannel_logout_session_required, true);
});

Deno.test("end-session with a hint from another browser ends the hinted session and tells its RP", async () => {
  await using rp = await receiver();
  await using svc = await startAuthService();
  const reg = await svc.register({
    redirectUris: [REDIRECT],
    enableEndSession: true,
    backchannelLogoutUri: rp.url,
  });
  const as = await discover(svc.issuer);
  const flow = await runBasicCodeFlow(as, reg, REDIRECT, new Browser());
  const elsewhere = new Browser();
  const url = new URL(as.end_session_endpoint!);
  url.searchParams.set("id_token_hint", flow.tokens.id_token!);
  const response = await elsewhere.request(url.href);
  assert.equal(response.status, 200);
  await response.body?.cancel();
  await svc.logoutDelivery.idle();
  assert.equal(rp.received.length, 1);
  const claims = await verifyLogoutToken(svc, rp.received[0].logoutToken!, reg.client_id);
  assert.equal(claims.sid, flow.claims.sid);
});

Deno.test("disabling a user (auth:users disable) sends the logout with reason user_disabled", async () => {
  await using rp = await receiver();
  const events: DeliveryEvent[] = [];
  await using svc = await startAuthService({}, "127.0.0.1", undefined, {
    backchannel: { onDelivery: (e) => void events.push(e) },
  });
  const { reg, flow } = await signedIn(svc, rp.url);
  await disableUser(svc.database.client, "local-developer");
  svc.logoutDelivery.kick(); // the CLI runs in another process; the service is kicked or polls
  await svc.logoutDelivery.idle();
  assert.deepEqual(events.map((e) => [e.reason, e.outcome]), [["user_disabled", "delivered"]]);
  const claims = await verifyLogoutToken(svc, rp.received[0].logoutToken!, reg.client_id);
  assert.equal(claims.sid, flow.claims.sid);
});

Deno.test("a member removed from the organisation: after the TTL the refresh is refused and the RP receives a logout token", async () => {
  await using rp = await receiver();
  const { svc, github, clock } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const redirect = "https://app.example.test/callback";
  const client = await svc.register({ redirectUris: [redirect], backchannelLogoutUri: rp.url });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  const tokens = await codeFlow(jar, client, redirect);
  github.orgs.memberships.get("alice")!.delete("Acme");
  clock.now += 16 * 60_000;
  const refused = await tokenRequest(jar, client, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
  });
  assert.equal(refused.status, 400);
  await refused.body?.cancel();
  await svc.logoutDelivery.idle();
  assert.equal(rp.received.length, 1, "the RP is told");
  const jwks = await (await svc.handle(new Request(`${BASE}/api/auth/jwks`))).json();
  const { payload, protectedHeader } = await jwtVerify(rp.received[0].logoutToken!, createLocalJWKSet(jwks), {
    issuer: `${BASE}/api/auth`,
    audience: client.client_id,
    typ: "logout+jwt",
  });
  assert.equal(protectedHeader.typ, "logout+jwt");
  assert.deepEqual(payload.events, { [BACKCHANNEL_LOGOUT_EVENT]: {} });
  assert.equal(payload.sid, payloadOf(tokens.id_token).sid, "the ended session");
  assert.equal(payload.sub, payloadOf(tokens.id_token).sub);
  const reason = await svc.database.client.execute("SELECT reason FROM svc_backchannel_outbox");
  assert.deepEqual(reason.rows.map((r) => r.reason), ["membership_lost"]);
});
