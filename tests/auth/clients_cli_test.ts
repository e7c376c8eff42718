/**
 * `deno task oauth:clients` against a running service's database: list and show without secrets, update
 * with oauth:register's URI checks, secret rotation (old secret refused at once, new one works, only its
 * hash stored), delete revoking tokens and consents, and bad input.
 */
import assert from "node:assert/strict";
import { tempDir } from "@switchyard/lib/testing.ts";
import type { ClientDetails, ClientInfo } from "../../auth/operations/clients.ts";
import { sha256Base64Url } from "../../auth/endpoints/client_auth.ts";
import { Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, runBasicCodeFlow } from "./rp.ts";
import { jsonOf, task } from "./cli_task.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const NEW_REDIRECT = "https://app.example.test/callback";

Deno.test("oauth:clients lists, shows, updates, rotates the secret of and deletes a client with its tokens", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const registered = jsonOf<{ client_id: string; client_secret: string }>(
    await task("oauth:register", ["--name", "Ops App", "--redirect-uri", REDIRECT, "--json"], env),
  );
  const id = registered.client_id;
  const as = await discover(svc.issuer);
  const flow = await runBasicCodeFlow(as, registered, REDIRECT, new Browser());
  const refresh = (secret: string, token: string) =>
    postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: token }, {
      authorization: basic(id, secret),
    });

  const listed = await task("oauth:clients", ["list", "--json"], env);
  const clients = jsonOf<ClientInfo[]>(listed);
  assert.deepEqual(clients.map((c) => [c.client_id, c.name, c.type, c.redirect_uris]), [[
    id,
    "Ops App",
    "confidential",
    [REDIRECT],
  ]]);
  const stored = (await svc.database.client.execute({
    sql: "SELECT client_secret FROM oauth_client WHERE client_id = ?",
    args: [id],
  })).rows[0].client_secret as string;
  assert.ok(!listed.stdout.includes(stored), "no secret hash in the listing");
  const human = await task("oauth:clients", ["list"], env);
  assert.match(human.stdout, new RegExp(`${id}\\s+Ops App\\s+confidential\\s+http://127\\.0\\.0\\.1:9/cb`));

  const shown = jsonOf<ClientDetails>(await task("oauth:clients", ["show", id, "--json"], env));
  assert.equal(shown.active_refresh_tokens, 1);
  assert.equal(shown.active_access_tokens, 1);
  assert.equal(shown.consents, 1);

  const bad = await task("oauth:clients", ["update", id, "--redirect-uri", "http://evil.example/cb"], env);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--redirect-uri http:\/\/evil\.example\/cb must use https/);
  const noEndSession = await task("oauth:clients", [
    "update",
    id,
    "--post-logout-redirect-uri",
    "https://app.example.test/",
  ], env);
  assert.equal(noEndSession.code, 1);
  assert.match(noEndSession.stderr, /needs a client registered with --enable-end-session/);
  const updated = jsonOf<ClientInfo>(
    await task(
      "oauth:clients",
      ["update", id, "--name", "Renamed", "--redirect-uri", NEW_REDIRECT, "--json"],
      env,
    ),
  );
  assert.equal(updated.name, "Renamed");
  assert.deepEqual(updated.redirect_uris, [NEW_REDIRECT]);
  // The old redirect URI is no longer registered: the authorization endpoint refuses to redirect there.
  const authorize = new URL(as.authorization_endpoint!);
  for (
    const [k, v] of Object.entries({
      client_id: id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    })
  ) authorize.searchParams.set(k, v);
  const refused = await fetch(authorize, { redirect: "manual", headers: { "sec-fetch-mode": "navigate" } });
  await refused.body?.cancel();
  assert.ok(!(refused.headers.get("location") ?? "").startsWith(REDIRECT), "never redirected to the old URI");

  const rotated = jsonOf<{ client_id: string; client_secret: string }>(
    await task("oauth:clients", ["rotate-secret", id, "--json"], env),
  );
  assert.notEqual(rotated.client_secret, registered.client_secret);
  const hash = (await svc.database.client.execute({
    sql: "SELECT client_secret FROM oauth_client WHERE client_id = ?",
    args: [id],
  })).rows[0].client_secret;
  assert.equal(hash, await sha256Base64Url(rotated.client_secret), "only the hash is stored");
  const oldSecret = await refresh(registered.client_secret, flow.tokens.refresh_token!);
  assert.equal(oldSecret.status, 401, "the old secret stops working at once");
  await oldSecret.body?.cancel();
  const newSecret = await refresh(rotated.client_secret, flow.tokens.refresh_token!);
  assert.equal(newSecret.status, 200, await newSecret.clone().text());
  const next = await newSecret.json() as { access_token: string; refresh_token: string };

  const deleted = await task("oauth:clients", ["delete", id], env);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(
    deleted.stdout,
    /deleted client .*: revoked 1 refresh and 2 access tokens, removed 1 consents/,
    "the first access token outlives its refresh until it expires",
  );
  const userinfo = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${next.access_token}` },
  });
  assert.equal(userinfo.status, 401, "the client's access token is revoked");
  await userinfo.body?.cancel();
  const afterDelete = await refresh(rotated.client_secret, next.refresh_token);
  assert.equal(afterDelete.status, 401, "the client is gone");
  await afterDelete.body?.cancel();
  for (const table of ["oauth_access_token", "oauth_refresh_token", "oauth_consent", "oauth_client"]) {
    const n = (await svc.database.client.execute({
      sql: `SELECT count(*) AS n FROM ${table} WHERE client_id = ?`,
      args: [id],
    })).rows[0].n;
    assert.equal(Number(n), 0, `${table} has nothing of the client`);
  }
  const gone = await task("oauth:clients", ["show", id], env);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, new RegExp(`no OAuth client with id "${id}"`));
});

Deno.test("oauth:clients refuses a public client's secret rotation and names every bad argument", async () => {
  await using dir = await tempDir();
  const env = { AUTH_DATABASE_URL: `file:${dir.path}/auth.db` };
  const cases: [string[], RegExp][] = [
    [[], /missing command/],
    [["drop", "x"], /unknown command "drop"/],
    [["show"], /show needs a client id/],
    [
      ["update", "x"],
      /update needs --name, --redirect-uri, --post-logout-redirect-uri or --backchannel-logout-uri/,
    ],
    [["show", "x", "--name", "n"], /--name applies to update only/],
    [["list", "x"], /unexpected argument "x"/],
    [["delete", "x", "y"], /unexpected argument "y"/],
    [["list", "--secret", "s"], /--secret/],
  ];
  for (const [args, message] of cases) {
    const result = await task("oauth:clients", args, env);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, "");
  }
  await assert.rejects(Deno.stat(`${dir.path}/auth.db`), Deno.errors.NotFound, "no database was written");
  for (const command of ["show", "rotate-secret", "delete"]) {
    const unknown = await task("oauth:clients", [command, "nope"], env);
    assert.equal(unknown.code, 1, command);
    assert.match(unknown.stderr, /no OAuth client with id "nope"/);
  }
  const unknownUpdate = await task("oauth:clients", ["update", "nope", "--name", "x"], env);
  assert.equal(unknownUpdate.code, 1);
  assert.match(unknownUpdate.stderr, /no OAuth client with id "nope"/);
  const pub = jsonOf<{ client_id: string }>(
    await task("oauth:register", [
      "--name",
      "CLI",
      "--redirect-uri",
      "http://127.0.0.1/cb",
      "--public",
      "--json",
    ], env),
  );
  const refused = await task("oauth:clients", ["rotate-secret", pub.client_id], env);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /is public: it has no secret to rotate/);
  const remote = await task("oauth:clients", ["list", "--remote"], env);
  assert.equal(remote.code, 1);
  assert.match(remote.stderr, /--remote needs AUTH_DATABASE_URL/);
});
