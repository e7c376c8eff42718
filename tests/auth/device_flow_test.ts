/**
 * RFC 8628 device authorization grant against the real service: openid-client's device helpers
 * (`initiateDeviceAuthorization`, `pollDeviceAuthorizationGrant`) get OAuth tokens (access, refresh, ID) for a
 * public client registered with `--device` after a person signs in on `/device`, enters the code and allows
 * it; the error codes of §3.5 exactly; single-use device codes; introspection by the audience client.
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { Browser, locationOf, startAuthService } from "./harness.ts";
import { USER_CODE_ALPHABET } from "../../auth/device/device_flow.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`);

async function poll(url: string, clientId: string, deviceCode: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: deviceCode,
      client_id: clientId,
    }),
  });
  return { status: response.status, body: await response.json() };
}

/** A person on /device: signs in (local developer), enters the code, decides. */
async function approveOnDevicePage(base: string, userCode: string, decision: "allow" | "deny") {
  const browser = new Browser();
  const signIn = await browser.request(`${base}/device?user_code=${userCode.replace("-", "").toLowerCase()}`);
  assert.match(await signIn.text(), /Sign in to connect a device/);
  const signedIn = await browser.postForm(`${base}/device/sign-in`, { user_code: userCode });
  assert.equal(signedIn.status, 303);
  const consent = await browser.request(locationOf(signedIn, base));
  const html = await consent.text();
  assert.equal(consent.status, 200, html);
  assert.ok(html.includes(userCode), "the consent page shows the code to compare");
  assert.match(html, /Allow Device CLI on your device\?/);
  const done = await browser.postForm(`${base}/device/decision`, { user_code: userCode, decision });
  assert.equal(done.status, 200);
  return { browser, html: await done.text() };
}

Deno.test(
  "device grant: openid-client gets access, refresh and ID tokens after a person allows the code on /device",
  e2e,
  async () => {
    await using svc = await startAuthService();
    const gateway = await svc.register({ name: "Gateway", redirectUris: ["http://127.0.0.1:9/cb"] });
    const cli = await svc.register({
      name: "Device CLI",
      redirectUris: [],
      public: true,
      device: true,
      audience: [gateway.client_id],
    });
    const config = await client.discovery(new URL(svc.issuer), cli.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const metadata = config.serverMetadata();
    assert.equal(metadata.device_authorization_endpoint, `${svc.url}/api/auth/oauth2/device-authorization`);
    assert.ok(metadata.grant_types_supported?.includes("urn:ietf:params:oauth:grant-type:device_code"));

    const started = await client.initiateDeviceAuthorization(config, { scope: "openid profile" });
    assert.match(started.user_code, CODE);
    assert.equal(started.verification_uri, `${svc.url}/device`);
    assert.equal(started.verification_uri_complete, `${svc.url}/device?user_code=${started.user_code}`);
    assert.equal(started.interval, 5);
    assert.equal(started.expires_in, 600);

    const { html } = await approveOnDevicePage(svc.url, started.user_code, "allow");
    assert.match(html, /Device connected/);
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    assert.ok(tokens.access_token && tokens.refresh_token && tokens.id_token);
    assert.equal(tokens.claims()?.sub, "local-developer");

    // Single use: the device code is spent.
    const again = await poll(metadata.token_endpoint!, cli.client_id, started.device_code);
    assert.deepEqual([again.status, again.body.error], [400, "invalid_grant"]);

    // The audience client may introspect it and sees itself in aud; another confidential client may not.
    const introspect = async (who: { client_id: string; client_secret?: string }) => {
      const r = await fetch(metadata.introspection_endpoint!, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${who.client_id}:${who.client_secret}`)}`,
        },
        body: new URLSearchParams({ token: tokens.access_token }),
      });
      return await r.json();
    };
    const seen = await introspect(gateway);
    assert.equal(seen.active, true);
    assert.equal(seen.client_id, cli.client_id);
    assert.deepEqual(seen.aud, [gateway.client_id]);
    assert.equal(seen.sub, "local-developer");
    const other = await svc.register({ name: "Other", redirectUris: ["http://127.0.0.1:9/cb"] });
    assert.equal((await introspect(other)).active, false);

    // The decision is in the audit log, as a consent of that client.
    const audited = await svc.database.client.execute(
      "SELECT action, outcome, client_id, reason FROM svc_audit WHERE action = 'consent'",
    );
    assert.ok(
      audited.rows.some((r) => r.client_id === cli.client_id && String(r.reason).startsWith("device allow")),
      JSON.stringify(audited.rows),
    );

    // The refresh token works like any other (rotation).
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    assert.ok(refreshed.access_token && refreshed.access_token !== tokens.access_token);
  },
);

Deno.test(
  "device grant: authorization_pending, slow_down, access_denied and expired_token exactly as RFC 8628 says",
  e2e,
  async () => {
    await using svc = await startAuthService();
    const cli = await svc.register({ name: "Device CLI", redirectUris: [], public: true, device: true });
    const tokenUrl = `${svc.issuer}/oauth2/token`;
    const start = async () => {
      const r = await fetch(`${svc.issuer}/oauth2/device-authorization`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: cli.client_id, scope: "openid" }),
      });
      assert.equal(r.status, 200);
      return await r.json();
    };
    const a = await start();
    assert.deepEqual(
      (await poll(tokenUrl, cli.client_id, a.device_code)).body.error,
      "authorization_pending",
    );
    const fast = await poll(tokenUrl, cli.client_id, a.device_code);
    assert.deepEqual([fast.status, fast.body.error], [400, "slow_down"]);
    assert.match(fast.body.error_description, /wait 10 s/);
    const faster = await poll(tokenUrl, cli.client_id, a.device_code);
    assert.match(faster.body.error_description, /wait 15 s/, "the interval keeps growing by 5 s");

    const b = await start();
    const { html } = await approveOnDevicePage(svc.url, b.user_code, "deny");
    assert.match(html, /Device refused/);
    assert.deepEqual((await poll(tokenUrl, cli.client_id, b.device_code)).body.error, "access_denied");

    const c = await start();
    await svc.database.client.execute(
      "UPDATE verification SET value = json_set(value, '$.expiresAt', 0) WHERE identifier LIKE 'device:%'",
    );
    assert.deepEqual((await poll(tokenUrl, cli.client_id, c.device_code)).body.error, "expired_token");

    // A client without --device may not start one; an unknown device code is invalid_grant.
    const web = await svc.register({ name: "Web", redirectUris: ["http://127.0.0.1:9/cb"], public: true });
    const refused = await fetch(`${svc.issuer}/oauth2/device-authorization`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: web.client_id }),
    });
    assert.deepEqual([refused.status, (await refused.json()).error], [400, "unauthorized_client"]);
    assert.equal((await poll(tokenUrl, cli.client_id, "nope")).body.error, "invalid_grant");
    // A code already decided cannot be entered again.
    const browser = new Browser();
    await browser.postForm(`${svc.url}/device/sign-in`, { user_code: "" });
    const reused = await browser.request(`${svc.url}/device?user_code=${b.user_code}`);
    assert.equal(reused.status, 400);
    await reused.body?.cancel();
  },
);
