/**
 * `deno task auth:keys`: rotation under load (no request lost, every ID token's key already in the JWKS
 * when the token is answered, old keys kept), a client that cached the JWKS before the rotation, retiring,
 * the publication window of replaced keys, and bad input.
 */
import assert from "node:assert/strict";
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { tempDir } from "@switchyard/lib/testing.ts";
import type { SigningKeyInfo } from "../../auth/operations/signing_keys.ts";
import { ID_TOKEN_LIFETIME_SECONDS, RETIRED_KEY_PUBLISH_SECONDS } from "../../auth/signing/lifetimes.ts";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, prepareAuthorization } from "./rp.ts";
import { jsonOf, task } from "./cli_task.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const WORKERS = 4;
const LEAD_SECONDS = 3;

type Jwks = { keys: { kid: string }[] };

Deno.test("a rotation under concurrent token requests loses none, and every ID token verifies against the JWKS fetched right after it", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const reg = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const auth = basic(reg.client_id, reg.client_secret!);
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const codes: { code: string; verifier: string }[] = [];
  for (let i = 0; i < WORKERS + 2; i++) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
    const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
    codes.push({ code: callback.searchParams.get("code")!, verifier: prepared.verifier });
  }
  const exchange = async (grant: { code: string; verifier: string }) => {
    const response = await postForm(as.token_endpoint!, {
      grant_type: "authorization_code",
      code: grant.code,
      code_verifier: grant.verifier,
      redirect_uri: REDIRECT,
    }, { authorization: auth });
    assert.equal(response.status, 200);
    return await response.json() as { id_token: string; refresh_token: string };
  };
  const chains = await Promise.all(codes.slice(0, WORKERS).map(exchange));
  const oldKid = decodeProtectedHeader(chains[0].id_token).kid!;
  // A relying party that fetched the JWKS before the rotation (jose refetches on an unknown kid).
  const cachedBefore = createRemoteJWKSet(new URL(as.jwks_uri!), { cooldownDuration: 0 });
  await jwtVerify(chains[0].id_token, cachedBefore, { issuer: svc.issuer });

  const tokens: { idToken: string; at: number; path: string }[] = [];
  const failures: string[] = [];
  let stop = false;
  const jwksHas = async (idToken: string) => {
    const jwks = await (await fetch(as.jwks_uri!)).json() as Jwks;
    const kid = decodeProtectedHeader(idToken).kid;
    if (!jwks.keys.some((k) => k.kid === kid)) failures.push(`kid ${kid} missing from the JWKS right after`);
  };
  const worker = async (start: string) => {
    let refreshToken = start;
    while (!stop) {
      const response = await postForm(as.token_endpoint!, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      }, { authorization: auth });
      if (response.status !== 200) {
        failures.push(`refresh answered ${response.status}: ${await response.text()}`);
        return;
      }
      const body = await response.json() as { id_token: string; refresh_token: string };
      tokens.push({ idToken: body.id_token, at: Date.now(), path: "refresh" });
      await jwksHas(body.id_token);
      refreshToken = body.refresh_token;
    }
  };
  const workers = chains.map((c) => worker(c.refresh_token));
  await new Promise((r) => setTimeout(r, 300));
  const rotatedAt = Date.now();
  const rotation = jsonOf<{ kid: string; signs_from: string; replaced: { kid: string }[] }>(
    await task("auth:keys", ["rotate", "--publish-lead", String(LEAD_SECONDS), "--json"], env),
  );
  const signsFrom = Date.parse(rotation.signs_from);
  assert.ok(signsFrom >= rotatedAt + LEAD_SECONDS * 1000, "the new key signs only after the lead");
  assert.deepEqual(rotation.replaced.map((r) => r.kid), [oldKid]);
  // The library's own code exchange, inside the lead: still the old key.
  const during = await exchange(codes[WORKERS]);
  assert.equal(decodeProtectedHeader(during.id_token).kid, oldKid);
  await jwksHas(during.id_token);
  while (Date.now() < signsFrom + 2500) await new Promise((r) => setTimeout(r, 100));
  const after = await exchange(codes[WORKERS + 1]);
  tokens.push({ idToken: after.id_token, at: Date.now(), path: "code" });
  stop = true;
  await Promise.all(workers);

  assert.deepEqual(failures, []);
  assert.equal(decodeProtectedHeader(after.id_token).kid, rotation.kid, "the library's path signs with it");
  const refreshes = tokens.filter((t) => t.path === "refresh");
  assert.ok(refreshes.length > 20, `load ran (${refreshes.length} refreshes)`);
  for (const t of tokens) {
    const kid = decodeProtectedHeader(t.idToken).kid;
    if (t.at < signsFrom) assert.equal(kid, oldKid, "no token signed with the new key before its time");
    // The service's signer re-reads the current key at most once a second.
    if (t.at > signsFrom + 1500) assert.equal(kid, rotation.kid, "the new key signs after its time");
    const claims = decodeJwt(t.idToken);
    assert.equal(claims.exp! - claims.iat!, ID_TOKEN_LIFETIME_SECONDS, "ID token lifetime as documented");
  }
  assert.ok(refreshes.some((t) => decodeProtectedHeader(t.idToken).kid === rotation.kid));

  const after_ = createLocalJWKSet(await (await fetch(as.jwks_uri!)).json() as Jwks & { keys: [] });
  for (const t of tokens) await jwtVerify(t.idToken, after_, { issuer: svc.issuer });
  await jwtVerify(after.id_token, cachedBefore, { issuer: svc.issuer });

  const keys = jsonOf<SigningKeyInfo[]>(await task("auth:keys", ["list", "--json"], env));
  assert.deepEqual(keys.map((k) => [k.kid, k.status]), [[rotation.kid, "current"], [oldKid, "previous"]]);
  assert.equal(keys[1].stops_signing, rotation.signs_from);
  assert.equal(Date.parse(keys[1].published_until!), signsFrom + RETIRED_KEY_PUBLISH_SECONDS * 1000);

  const current = await task("auth:keys", ["--retire", rotation.kid], env);
  assert.equal(current.code, 1);
  assert.match(current.stderr, /is the current signing key; rotate first/);
  const retired = await task("auth:keys", ["--retire", oldKid], env);
  assert.equal(retired.code, 0, retired.stderr);
  await new Promise((r) => setTimeout(r, 1100)); // the service's JWKS copy lives a second
  const jwks = await (await fetch(as.jwks_uri!)).json() as Jwks;
  assert.deepEqual(jwks.keys.map((k) => k.kid), [rotation.kid]);
});

Deno.test("a replaced key leaves the JWKS once its publication window is over, and the next rotation deletes it", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const first = jsonOf<{ kid: string; signs_from: string }>(
    await task("auth:keys", ["rotate", "--json"], env),
  );
  assert.ok(Date.parse(first.signs_from) <= Date.now(), "the first key of an empty table signs at once");
  const second = jsonOf<{ kid: string }>(
    // A lead far longer than the subprocesses below take on a loaded machine (2 s made the next key current
    // before `--retire` ran); its end is then moved by hand.
    await task("auth:keys", ["rotate", "--publish-lead", "600", "--json"], env),
  );
  const pending = jsonOf<SigningKeyInfo[]>(await task("auth:keys", ["list", "--json"], env));
  assert.deepEqual(pending.map((k) => [k.kid, k.status]), [[second.kid, "next"], [first.kid, "current"]]);
  const next = await task("auth:keys", ["--retire", second.kid], env);
  assert.equal(next.code, 1);
  assert.match(next.stderr, /is the next signing key/);
  const jwksUrl = `${svc.issuer}/jwks`;
  const listed = await (await fetch(jwksUrl)).json() as Jwks;
  assert.deepEqual(
    listed.keys.map((k) => k.kid).sort(),
    [first.kid, second.kid].sort(),
    "next key published",
  );
  // The lead is over: the next key signs from now on.
  await svc.database.client.execute({
    sql: "UPDATE jwks SET created_at = ? WHERE id = ?",
    args: [Date.now() - 1000, second.kid],
  });
  // Move the replaced key's end of signing back past the publication window.
  await svc.database.client.execute({
    sql: "UPDATE jwks SET expires_at = ? WHERE id = ?",
    args: [Date.now() - RETIRED_KEY_PUBLISH_SECONDS * 1000 - 1000, first.kid],
  });
  await new Promise((r) => setTimeout(r, 2100));
  const later = await (await fetch(jwksUrl)).json() as Jwks;
  assert.deepEqual(later.keys.map((k) => k.kid), [second.kid]);
  const keys = jsonOf<SigningKeyInfo[]>(await task("auth:keys", ["list", "--json"], env));
  assert.deepEqual(keys.map((k) => [k.kid, k.status]), [[second.kid, "current"], [first.kid, "unpublished"]]);
  const third = jsonOf<{ deleted: string[] }>(await task("auth:keys", ["rotate", "--json"], env));
  assert.deepEqual(third.deleted, [first.kid]);
});

Deno.test("auth:keys names the bad argument, exits 1 on an unknown kid, and writes nothing on bad input", async () => {
  await using dir = await tempDir();
  const env = { AUTH_DATABASE_URL: `file:${dir.path}/auth.db` };
  const cases: [string[], number, RegExp][] = [
    [[], 2, /missing command/],
    [["rotate", "--publish-lead", "1"], 2, /--publish-lead must be a whole number of seconds from 2/],
    [["rotate", "--publish-lead", "5s"], 2, /--publish-lead must be .* got "5s"/],
    [["list", "--publish-lead", "5"], 2, /--publish-lead applies to rotate only/],
    [["rotate", "--force"], 2, /--force/],
    [["remove", "x"], 2, /unknown command "remove"/],
    [["list", "extra"], 2, /unexpected argument "extra"/],
    [["list", "--retire", "k"], 2, /--retire is a command of its own/],
    [["--retire"], 2, /--retire/],
  ];
  for (const [args, code, message] of cases) {
    const result = await task("auth:keys", args, env);
    assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, "");
  }
  await assert.rejects(Deno.stat(`${dir.path}/auth.db`), Deno.errors.NotFound, "no database was written");
  const unknown = await task("auth:keys", ["--retire", "no-such-kid"], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no signing key with kid "no-such-kid"/);
  const remote = await task("auth:keys", ["rotate", "--remote"], {
    AUTH_DATABASE_URL: "libsql://db.example.test",
    AUTH_SECRET: "",
  });
  assert.equal(remote.code, 1);
  assert.match(remote.stderr, /--remote needs AUTH_SECRET/);
});

Deno.test("rotate refuses a secret that cannot decrypt the current key, and adds nothing", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const first = jsonOf<{ kid: string }>(await task("auth:keys", ["rotate", "--json"], env));
  const wrong = await task("auth:keys", ["rotate"], { ...env, AUTH_SECRET: "x".repeat(40) });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /AUTH_SECRET does not decrypt the current signing key/);
  const keys = jsonOf<SigningKeyInfo[]>(await task("auth:keys", ["list", "--json"], env));
  assert.deepEqual(keys.map((k) => k.kid), [first.kid]);
});
