/**
 * API keys end to end: the `gateway:keys` command against a real libSQL file, hashed storage, the cached
 * verifier (no database round trip per request, new keys at once, revocation within seconds).
 */
import assert from "node:assert/strict";
import { tempDir } from "@switchyard/lib/testing.ts";
import { openClient } from "@switchyard/lib/db.ts";
import { runKeysCli } from "../../gateway/keys/cli.ts";
import { hashKey } from "../../gateway/keys/store.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { startHarness } from "./harness.ts";

Deno.test("gateway:keys creates a key shown once, lists it without the key, and revokes it", async () => {
  await using dir = await tempDir();
  const env = { GATEWAY_DATABASE_URL: `file:${dir.path}/keys.db` };
  const out: string[] = [];
  const err: string[] = [];
  assert.equal(
    await runKeysCli(["create", "--name", "ci", "--json"], env, (l) => out.push(l), (l) => err.push(l)),
    0,
  );
  assert.equal(out.length, 1, "--json prints exactly one line on stdout");
  const created = JSON.parse(out[0]);
  assert.deepEqual(Object.keys(created).sort(), ["id", "key"]);
  assert.match(created.key, /^sy_[A-Za-z0-9_-]{43}$/);

  const client = await openClient({ url: env.GATEWAY_DATABASE_URL });
  const rows = await client.execute("SELECT key_hash FROM gateway_api_keys");
  client.close();
  assert.equal(rows.rows[0].key_hash, hashKey(created.key));
  assert.ok(!JSON.stringify(rows.rows).includes(created.key), "the key itself is never stored");

  out.length = 0;
  assert.equal(await runKeysCli(["list", "--json"], env, (l) => out.push(l), (l) => err.push(l)), 0);
  const listed = JSON.parse(out[0]);
  assert.equal(listed[0].id, created.id);
  assert.equal(listed[0].revokedAt, null);
  assert.ok(!out[0].includes(created.key));

  assert.equal(await runKeysCli(["revoke", created.id], env, (l) => out.push(l), (l) => err.push(l)), 0);
  assert.equal(await runKeysCli(["revoke", created.id], env, (l) => out.push(l), (l) => err.push(l)), 1);
  assert.equal(await runKeysCli(["create"], env, (l) => out.push(l), (l) => err.push(l)), 2);
  assert.match(err.at(-1)!, /--name/);
});

Deno.test("the key verifier answers from memory and honours new keys and revocations", async () => {
  let clock = 0;
  const rows = [{ id: "key_a", key_hash: hashKey("sy_" + "a".repeat(43)) }];
  let loads = 0;
  const verifier = new KeyVerifier(() => {
    loads++;
    return Promise.resolve([...rows]);
  }, { ttlMs: 1_000, missRefreshMs: 250, now: () => clock });
  const a = "sy_" + "a".repeat(43);
  const b = "sy_" + "b".repeat(43);
  assert.equal((await verifier.verify(a))?.id ?? null, "key_a");
  assert.equal(loads, 1);
  for (let i = 0; i < 100; i++) assert.equal((await verifier.verify(a))?.id ?? null, "key_a");
  assert.equal(loads, 1, "steady state makes no database round trip per request");
  assert.equal((await verifier.verify("not-a-key"))?.id ?? null, null);
  assert.equal(loads, 1, "malformed keys never reach the database");

  rows.push({ id: "key_b", key_hash: hashKey(b) });
  clock += 300;
  assert.equal(
    (await verifier.verify(b))?.id ?? null,
    "key_b",
    "a new key works without waiting for the TTL",
  );
  assert.equal(loads, 2);
  for (let i = 0; i < 20; i++) await verifier.verify("sy_" + "z".repeat(43));
  assert.equal(loads, 2, "unknown keys cannot force more than one refresh per miss gap");

  rows.shift();
  clock += 2_000;
  assert.equal(
    (await verifier.verify(a))?.id ?? null,
    null,
    "a revoked key is refused once the snapshot is 2×TTL old",
  );
});

Deno.test("a revoked key stops working on the running gateway within seconds", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const h = await startHarness({ GATEWAY_KEY_CACHE_TTL_MS: "400" });
  try {
    const models = (key: string) =>
      fetch(`${h.url}/compat/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    assert.equal(await models(h.key), 200);
    const fresh = await h.store.create("fresh");
    await new Promise((r) => setTimeout(r, 260)); // unknown keys refresh the snapshot at most every 250 ms
    assert.equal(await models(fresh.key), 200, "a key created after start works without waiting for the TTL");
    const [info] = (await h.store.list()).filter((k) => k.name === "fresh");
    await h.store.revoke(info.id);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 5_000) {
      await new Promise((r) => setTimeout(r, 25));
      status = await models(fresh.key);
    }
    assert.equal(status, 401);
    assert.ok(Date.now() - started < 3_000, "revocation honoured within seconds (2×TTL plus a query)");
    assert.equal(await models(h.key), 200);
  } finally {
    await h.close();
  }
});
