import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { CamelCasePlugin } from "kysely";
import { kyselyFor } from "@switchyard/lib/db.ts";
import { EpochMsDatePlugin } from "./epoch_ms_dates.ts";
import { singleSigningKeyAdapter } from "./signing_key.ts";

async function setup() {
  const client = createClient({ url: ":memory:" });
  await client.execute(
    "CREATE TABLE jwks (id text PRIMARY KEY NOT NULL, public_key text NOT NULL, private_key text NOT NULL, " +
      "created_at integer NOT NULL, expires_at integer)",
  );
  const adapter = singleSigningKeyAdapter(
    kyselyFor(client, [new CamelCasePlugin(), new EpochMsDatePlugin()]),
  );
  return { client, adapter };
}

const key = (n: number, expiresAt?: Date) => ({
  publicKey: `pub${n}`,
  privateKey: `priv${n}`,
  createdAt: new Date(),
  alg: "RS256" as const,
  ...(expiresAt ? { expiresAt } : {}),
});

Deno.test("a second key creation returns the first key instead of inserting another", async () => {
  const { client, adapter } = await setup();
  const first = await adapter.createJwk(key(1));
  const second = await adapter.createJwk(key(2));
  assert.equal(second.id, first.id);
  assert.equal(second.publicKey, "pub1");
  assert.ok(second.createdAt instanceof Date && !Number.isNaN(second.createdAt.getTime()));
  const rows = await client.execute("SELECT typeof(created_at) AS t FROM jwks");
  assert.deepEqual(rows.rows.map((r) => r.t), ["integer"]);
  client.close();
});

Deno.test("an expired key does not block a new one (rotation keeps working)", async () => {
  const { client, adapter } = await setup();
  await client.execute(
    "INSERT INTO jwks VALUES ('old', 'pub0', 'priv0', 1, 2)",
  );
  const created = await adapter.createJwk(key(1, new Date(Date.now() + 60_000)));
  assert.notEqual(created.id, "old");
  assert.equal(created.publicKey, "pub1");
  assert.ok(created.expiresAt && created.expiresAt.getTime() > Date.now());
  client.close();
});
