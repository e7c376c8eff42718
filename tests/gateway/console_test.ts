/**
 * The admin console as an OIDC relying party of the real auth service (local mode): sign-in and return,
 * forged state, wrong nonce, replayed code, non-admins, CSRF, expired sessions, form errors and sign-out.
 */
import assert from "node:assert/strict";
import {
  authorizeConsole,
  Browser,
  csrfOf,
  locationOf,
  signIn,
  startConsoleHarness,
} from "./console_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "an admin signs in through the auth service and lands on the page first asked for",
  e2e,
  async () => {
    await using h = await startConsoleHarness();
    const browser = new Browser();
    const done = await signIn(h, browser, "/admin/usage?step=hour&since=2026-01-01&until=2026-01-02");
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), "/admin/usage?step=hour&since=2026-01-01&until=2026-01-02");
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith("gw_console="))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    const page = await browser.request(`${h.url}${done.headers.get("location")}`);
    assert.equal(page.status, 200);
    const csp = page.headers.get("content-security-policy")!;
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(page.headers.get("cache-control"), "no-store");
    const html = await page.text();
    assert.match(html, /<h1>Usage<\/h1>/);
    assert.match(html, /<svg class="chart"/);
    const sessions = await h.db.selectFrom("gateway_console_sessions").selectAll().execute();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].user_id, "local-developer");
    assert.notEqual(
      sessions[0].id_hash,
      cookie.split(";")[0].split("=")[1],
      "only a hash of the cookie is stored",
    );
  },
);

Deno.test("a callback with a forged state is refused with 400 and signs nobody in", e2e, async () => {
  await using h = await startConsoleHarness();
  const browser = new Browser();
  const callback = await authorizeConsole(h, browser, "/admin/keys");
  callback.searchParams.set("state", "forged-state-value");
  const response = await browser.request(callback.href);
  assert.equal(response.status, 400);
  assert.match(await response.text(), /does not belong to a sign-in started in this browser/);
  assert.equal((await h.db.selectFrom("gateway_console_sessions").selectAll().execute()).length, 0);
});

Deno.test(
  "a callback replayed after its sign-in completed is refused, in the same or another browser",
  e2e,
  async () => {
    await using h = await startConsoleHarness();
    const browser = new Browser();
    const callback = await authorizeConsole(h, browser, "/admin/keys");
    const login = browser.cookies.get("gw_console_login")!;
    const first = await browser.request(callback.href);
    assert.equal(first.status, 303);
    browser.cookies.set("gw_console_login", login);
    const again = await browser.request(callback.href);
    assert.equal(again.status, 400, "the sign-in attempt was consumed by the first callback");
    const attacker = new Browser();
    attacker.cookies.set("gw_console_login", login);
    assert.equal((await attacker.request(callback.href)).status, 400);
    assert.equal((await h.db.selectFrom("gateway_console_sessions").selectAll().execute()).length, 1);
  },
);

Deno.test("an ID token whose nonce is not the one the console sent is refused", e2e, async () => {
  await using h = await startConsoleHarness();
  const browser = new Browser();
  const callback = await authorizeConsole(
    h,
    browser,
    "/admin/keys",
    (url) => url.searchParams.set("nonce", "injected"),
  );
  const response = await browser.request(callback.href);
  assert.equal(response.status, 400);
  assert.match(await response.text(), /nonce does not match/);
  assert.equal((await h.db.selectFrom("gateway_console_sessions").selectAll().execute()).length, 0);
});

Deno.test("a signed-in person who is not an admin sees their own usage and requests only", e2e, async () => {
  await using h = await startConsoleHarness("root@example.com, some-user-id");
  const row = (key_id: string, request_id: string, cost_usd: number) => ({
    at: Date.now() - 60_000,
    key_id,
    model: "openai/fx-text",
    provider: "openai",
    served_model: "fx-text",
    attempts: 1,
    input_tokens: 10,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd,
    status: 200,
    error_type: null,
    latency_ms: 12,
    ttft_ms: null,
    stream: 0,
    trace_id: `trace_${request_id}`,
    request_id,
    warning: null,
  });
  h.ledger.record(row("user:local-developer", "req_mine", 0.25));
  h.ledger.record(row("user:someone-else", "req_theirs", 7.5));
  h.ledger.record(row("key_abc", "req_key", 3));
  await h.ledger.flush();
  const browser = new Browser();
  const done = await signIn(h, browser, "/admin/usage");
  assert.equal(done.status, 303);
  const keys = await browser.request(`${h.url}/admin/keys`);
  assert.equal(keys.status, 403);
  assert.match(await keys.text(), /Administrators only/);
  const requests = await browser.request(`${h.url}/admin/requests?key=user:someone-else`);
  const html = await requests.text();
  assert.equal(requests.status, 200);
  assert.match(html, /req_mine|user:local-developer/);
  assert.ok(!html.includes("someone-else"), "another person's rows");
  assert.ok(!html.includes("key_abc"));
  assert.ok(!html.includes('href="/admin/keys"'), "no Keys link for a person who is not an admin");
  const exported = await browser.request(`${h.url}/admin/usage/export.json?key=key_abc`);
  const text = await exported.text();
  assert.equal(exported.status, 200);
  assert.ok(!text.includes("7.5") && !text.includes("key_abc"), text.slice(0, 500));
  assert.match(text, /0\.25/);
  const root = await browser.request(`${h.url}/admin/`);
  assert.equal(root.status, 303);
  assert.equal(root.headers.get("location"), "/admin/usage");
  await root.body?.cancel();
  const csrf = await csrfOf(h, browser, "/admin/usage");
  const create = await browser.postForm(`${h.url}/admin/keys`, { name: "mine", _csrf: csrf });
  assert.equal(create.status, 403);
  assert.match(await create.text(), /Administrators only/);
  assert.equal((await h.db.selectFrom("gateway_api_keys").selectAll().execute()).length, 0, "no key made");
  const out = await browser.postForm(`${h.url}/admin/sign-out`, { _csrf: csrf });
  assert.equal(out.status, 303);
  await out.body?.cancel();
  assert.equal((await h.db.selectFrom("gateway_console_sessions").selectAll().execute()).length, 0);
});

Deno.test("a form posted without the session's CSRF token is refused with 403", e2e, async () => {
  await using h = await startConsoleHarness();
  const browser = new Browser();
  await signIn(h, browser);
  const missing = await browser.postForm(`${h.url}/admin/keys`, { name: "ci" });
  assert.equal(missing.status, 403);
  await missing.body?.cancel();
  const wrong = await browser.postForm(`${h.url}/admin/keys`, { name: "ci", _csrf: "x".repeat(43) });
  assert.equal(wrong.status, 403);
  await wrong.body?.cancel();
  const csrf = await csrfOf(h, browser);
  const foreign = await browser.postForm(
    `${h.url}/admin/keys`,
    { name: "ci", _csrf: csrf },
    "http://evil.test",
  );
  assert.equal(foreign.status, 403, "a form from another origin is refused even with the token");
  await foreign.body?.cancel();
  assert.equal((await h.store.list()).length, 0);
});

Deno.test(
  "a key form with bad limits re-renders with each error next to its field; a good one shows the key once",
  e2e,
  async () => {
    await using h = await startConsoleHarness();
    const browser = new Browser();
    await signIn(h, browser);
    const csrf = await csrfOf(h, browser);
    const bad = await browser.postForm(`${h.url}/admin/keys`, { _csrf: csrf, name: "ci", rpm: "ten" });
    assert.equal(bad.status, 400);
    const html = await bad.text();
    assert.match(html, /id="f-rpm"[^>]*aria-invalid="true"[^>]*aria-describedby="f-rpm-error"/);
    assert.match(
      html,
      /<p class="field-error" id="f-rpm-error">Expected a positive integer, got &quot;ten&quot;/,
    );
    assert.match(html, /value="ten"/, "the typed value is kept");
    const good = await browser.postForm(`${h.url}/admin/keys`, { _csrf: csrf, name: "ci", rpm: "3" });
    assert.equal(good.status, 200);
    const created = await good.text();
    const key = /id="created-key"[^>]*value="(sy_[^"]+)"/.exec(created)?.[1];
    assert.ok(key, "the new key is on the page");
    const [info] = await h.store.list();
    assert.equal(info.rpm, 3);
    const list = await (await browser.request(`${h.url}/admin/keys`)).text();
    assert.ok(!list.includes(key!), "the key is never shown again");
  },
);

Deno.test(
  "an expired session goes back through sign-in and returns to the page the admin was on",
  e2e,
  async () => {
    await using h = await startConsoleHarness();
    const browser = new Browser();
    await signIn(h, browser);
    await h.db.updateTable("gateway_console_sessions").set({ expires_at: 1 }).execute();
    const path = "/admin/requests?status=429";
    const callback = await authorizeConsole(h, browser, path);
    const done = await browser.request(callback.href);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), path);
  },
);

Deno.test(
  "sign-out ends the console session and the auth service's session (RP-initiated logout)",
  e2e,
  async () => {
    await using h = await startConsoleHarness();
    const browser = new Browser();
    await signIn(h, browser);
    const csrf = await csrfOf(h, browser);
    const out = await browser.postForm(`${h.url}/admin/sign-out`, { _csrf: csrf });
    assert.equal(out.status, 303);
    const endSession = new URL(locationOf(out, h.url));
    assert.equal(endSession.pathname, "/api/auth/oauth2/end-session");
    assert.ok(endSession.searchParams.get("id_token_hint"));
    const op = await browser.request(endSession.href);
    assert.equal(locationOf(op, endSession.href), `${h.url}/admin/signed-out`);
    assert.equal(browser.cookies.has("svc.session_token"), false, "the OP session cookie was cleared");
    assert.equal((await h.db.selectFrom("gateway_console_sessions").selectAll().execute()).length, 0);
    const after = await browser.request(`${h.url}/admin/keys`);
    assert.equal(after.status, 303);
    assert.match(after.headers.get("location")!, /^\/admin\/sign-in\?return_to=/);
  },
);
