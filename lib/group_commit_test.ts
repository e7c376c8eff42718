import assert from "node:assert/strict";
import { openClient } from "./db.ts";
import { GroupCommit } from "./group_commit.ts";

Deno.test("concurrent jobs share commits; a failing job is rolled back alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "switchyard-group-" });
  const client = await openClient({ url: `file:${dir}/g.db` });
  await client.execute("CREATE TABLE t (id TEXT PRIMARY KEY)");
  const writes = new GroupCommit(client);
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) =>
    writes.run(async (tx) => {
      await tx.execute({ sql: "INSERT INTO t (id) VALUES (?)", args: [`row-${i}`] });
      if (i % 10 === 3) throw new Error(`job ${i} fails after its insert`);
      return i;
    })));
  const rejected = results.filter((r) => r.status === "rejected").length;
  assert.equal(rejected, 4);
  const rows = await client.execute("SELECT id FROM t ORDER BY id");
  assert.equal(rows.rows.length, 36, "the failing jobs' inserts were rolled back, the others kept");
  assert.ok(!rows.rows.some((r) => String(r.id) === "row-3"));
  const later = await writes.run(async (tx) => (await tx.execute("SELECT count(*) AS n FROM t")).rows[0].n);
  assert.equal(Number(later), 36, "a later job runs in a later batch");
  client.close();
  await Deno.remove(dir, { recursive: true });
});
