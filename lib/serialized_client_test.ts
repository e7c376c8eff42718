import assert from "node:assert/strict";
import { openClient } from "./db.ts";
import { executeNowOf, queryNamed } from "./serialized_client.ts";

async function tempClient() {
  const dir = await Deno.makeTempDir({ prefix: "switchyard-serialized-" });
  const client = await openClient({ url: `file:${dir}/t.db` });
  await client.execute("CREATE TABLE parent (id TEXT PRIMARY KEY)");
  await client.execute(
    "CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parent(id) ON DELETE CASCADE)",
  );
  return { client, dir };
}

Deno.test("foreign keys stay enforced after a transaction (the file client used to reopen without them)", async () => {
  const { client, dir } = await tempClient();
  const tx = await client.transaction("write");
  await tx.execute({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["p"] });
  await tx.commit();
  await assert.rejects(
    client.execute("INSERT INTO child (id, parent_id) VALUES ('c', 'missing')"),
    /FOREIGN KEY/,
  );
  assert.equal((await client.execute("PRAGMA journal_mode")).rows[0].journal_mode, "wal");
  client.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a statement from outside waits for an open transaction and is not rolled back with it", async () => {
  const { client, dir } = await tempClient();
  const tx = await client.transaction("write");
  await tx.execute({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["in-tx"] });
  const outside = client.execute({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["outside"] });
  let outsideDone = false;
  outside.then(() => (outsideDone = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(outsideDone, false, "the outside write waits for the transaction");
  await tx.rollback();
  await outside;
  const rows = await client.execute("SELECT id FROM parent ORDER BY id");
  assert.deepEqual(rows.rows.map((r) => r.id), ["outside"], "only the rolled-back write is gone");
  client.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("concurrent transactions run one after another on the one connection", async () => {
  const { client, dir } = await tempClient();
  await Promise.all(Array.from({ length: 50 }, async (_, i) => {
    const tx = await client.transaction("write");
    await tx.execute({ sql: "INSERT INTO parent (id) VALUES (?)", args: [`p${i}`] });
    await tx.execute({ sql: "INSERT INTO child (id, parent_id) VALUES (?, ?)", args: [`c${i}`, `p${i}`] });
    await tx.commit();
  }));
  assert.equal(Number((await client.execute("SELECT count(*) AS n FROM child")).rows[0].n), 50);
  client.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a file transaction runs statements at once (rolled back with it, refused once it ended); queryNamed waits for it", async () => {
  const { client, dir } = await tempClient();
  const tx = await client.transaction("write");
  const now = executeNowOf(tx);
  assert.ok(now, "a local file's transaction has executeNow");
  assert.equal(now({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["in-tx"] }).rowsAffected, 1);
  const read = queryNamed(client, { sql: "SELECT id FROM parent ORDER BY id", args: [] });
  let readDone = false;
  read.then(() => (readDone = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(readDone, false, "the read waits for the transaction");
  await tx.rollback();
  assert.deepEqual(await read, [], "the rolled-back insert is gone");
  assert.throws(() => now({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["late"] }), /ended/);
  await client.execute({ sql: "INSERT INTO parent (id) VALUES (?)", args: ["p"] });
  assert.deepEqual(await queryNamed(client, { sql: "SELECT id FROM parent", args: [] }), [{ id: "p" }]);
  client.close();
  await Deno.remove(dir, { recursive: true });
});
