import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { CamelCasePlugin } from "kysely";
import { kyselyFor } from "@switchyard/lib/db.ts";
import { EpochMsDatePlugin, toEpochMs } from "./epoch_ms_dates.ts";

Deno.test("toEpochMs converts Dates and exact ISO strings only", () => {
  assert.equal(toEpochMs(new Date(1700000000123)), 1700000000123);
  assert.equal(toEpochMs("2023-11-14T22:13:20.123Z"), 1700000000123);
  assert.equal(toEpochMs("2023-11-14"), "2023-11-14");
  assert.equal(toEpochMs("hello"), "hello");
  assert.equal(toEpochMs(5), 5);
});

Deno.test("the plugin stores integer dates, compares as integers and reads ISO strings back", async () => {
  const client = createClient({ url: ":memory:" });
  await client.execute(
    "CREATE TABLE verification (id text, expires_at integer, created_at integer, value text)",
  );
  // deno-lint-ignore no-explicit-any
  const db = kyselyFor<any>(client, [new CamelCasePlugin(), new EpochMsDatePlugin()]);
  const soon = new Date(Date.now() + 60_000);
  await db.insertInto("verification").values({
    id: "a",
    expiresAt: soon.toISOString(),
    createdAt: new Date(0).toISOString(),
    value: "2020-01-01T00:00:00.000Z",
  }).execute();
  const raw = await client.execute("SELECT typeof(expires_at) AS t, expires_at, value FROM verification");
  assert.equal(raw.rows[0].t, "integer");
  assert.equal(raw.rows[0].expires_at, soon.getTime());
  assert.equal(raw.rows[0].value, "2020-01-01T00:00:00.000Z", "non-date columns are untouched");
  await db.deleteFrom("verification").where("expiresAt", "<", new Date().toISOString()).execute();
  const kept = await db.selectFrom("verification").selectAll().execute();
  assert.equal(kept.length, 1, "an unexpired row survives the ISO-string comparison");
  assert.equal(kept[0].expiresAt, soon.toISOString());
  await db.updateTable("verification").set({ expiresAt: new Date(1000).toISOString() }).execute();
  const updated = await client.execute("SELECT expires_at FROM verification");
  assert.equal(updated.rows[0].expires_at, 1000);
  client.close();
});
