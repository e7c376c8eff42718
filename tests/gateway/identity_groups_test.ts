/**
 * The real OP's `groups` reach the gateway's policies: a person signed in by the device grant with the
 * `groups` scope is limited by their team's policy (introspection carries the groups the auth service
 * stores for them), and `auth:users disable` stops their token at the gateway within
 * GATEWAY_IDENTITY_CACHE_MS.
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { Browser, locationOf, startAuthService } from "../auth/harness.ts";
import { startHarness } from "./harness.ts";
import { PolicyStore } from "../../gateway/identity/policy_store.ts";
import { disableUser } from "../../auth/operations/users.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { model: "openai/fx-text", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] };

Deno.test(
  "a team's policy applies to its member through the OP's groups; disabling the user stops the token",
  e2e,
  async () => {
    await using svc = await startAuthService();
    const gatewayClient = await svc.register({ name: "Gateway", redirectUris: ["http://127.0.0.1:9/cb"] });
    const device = await svc.register({
      name: "Gateway CLI",
      redirectUris: [],
      public: true,
      device: true,
      audience: [gatewayClient.client_id],
    });
    const config = await client.discovery(new URL(svc.issuer), device.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const started = await client.initiateDeviceAuthorization(config, { scope: "openid groups" });
    const browser = new Browser();
    const signedIn = await browser.postForm(`${svc.url}/device/sign-in`, { user_code: started.user_code });
    await (await browser.request(locationOf(signedIn, svc.url))).body?.cancel();
    const done = await browser.postForm(`${svc.url}/device/decision`, {
      user_code: started.user_code,
      decision: "allow",
    });
    assert.equal(done.status, 200);
    await done.body?.cancel();
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    // What a membership check of the auth service would have stored for this person.
    await svc.database.client.execute({
      sql:
        "INSERT INTO svc_user_access (user_id, groups, check_status, checked_at, ok_at) VALUES (?, ?, 'member', ?, ?) " +
        "ON CONFLICT (user_id) DO UPDATE SET groups = excluded.groups",
      args: ["local-developer", JSON.stringify(["acme", "acme/ml"]), Date.now(), Date.now()],
    });

    const h = await startHarness({
      GATEWAY_OIDC_ISSUER: svc.issuer,
      GATEWAY_OIDC_CLIENT_ID: gatewayClient.client_id,
      GATEWAY_OIDC_CLIENT_SECRET: gatewayClient.client_secret!,
      GATEWAY_OIDC_TOKEN_CLIENTS: device.client_id,
      GATEWAY_IDENTITY_CACHE_MS: "400",
    });
    try {
      const policies = new PolicyStore(h.db as never);
      await policies.set("default:user", { rpm: 100 });
      await policies.set("group:acme", { rpm: 50 });
      await policies.set("group:acme/ml", { rpm: 2 });
      const post = () =>
        fetch(`${h.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${tokens.access_token}` },
          body: JSON.stringify(ask),
        });
      assert.equal((await post()).status, 200);
      assert.equal((await post()).status, 200);
      const third = await post();
      assert.equal(third.status, 429);
      assert.match(
        (await third.json()).error.message,
        /user:local-developer is over its limit of 2 requests/,
      );

      await disableUser(svc.database.client, "local-developer");
      await new Promise((r) => setTimeout(r, 450));
      const disabled = await post();
      assert.equal(disabled.status, 401, await disabled.text());
    } finally {
      await h.close();
    }
  },
);
