import assert from "node:assert/strict";
import { openClient } from "./db.ts";
import { GroupCommit } from "./group_commit.ts";
import { libsqlFileClient } from "./libsql_file_client.ts";
import { executeNowOf, serializedClient } from "./serialized_client.ts";

Deno.test("concurrent jobs share commits; a failing job is rolled back alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "switchyard-group-" });
  const client = await openClient({ url: `file:${dir}/g.db` });
  await client.execute("CREATE TABLE t (id TEXT PRIMARY KEY)");
  const writes = new GroupCommit(client);
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) =>
    writes.run(async (tx) => {
      // Half the jobs run their insert at once (a file transaction's executeNow), half through a promise.
      const now = i % 2 ? executeNowOf(tx) : undefined;
      if (i % 2) assert.ok(now);
      const stmt = { sql: "INSERT INTO t (id) VALUES (?)", args: [`row-${i}`] };
      if (now) now(stmt);
      else await tx.execute(stmt);
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

Deno.test("on a WAL-synced file the next batch runs while the previous one's sync is under way; jobs settle once durable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "switchyard-group-" });
  const releases: (() => void)[] = [];
  const inner = libsqlFileClient(`file:${dir}/g.db`, {
    walSync: true,
    syncWal: () => new Promise<void>((resolve) => releases.push(resolve)),
  });
  const client = serializedClient(inner);
  const create = client.execute("CREATE TABLE t (id TEXT PRIMARY KEY)");
  while (releases.length < 1) await new Promise((r) => setTimeout(r, 1));
  releases.shift()!();
  await create;
  const writes = new GroupCommit(client);
  const settled: string[] = [];
  const job = (id: string) =>
    writes.run(async (tx) => {
      await tx.execute({ sql: "INSERT INTO t (id) VALUES (?)", args: [id] });
      return id;
    }).then((v) => settled.push(v), (e) => settled.push(`failed ${e}`));
  const first = job("a");
  while (releases.length < 1) await new Promise((r) => setTimeout(r, 1));
  // Batch one committed and waits for its sync; a second batch executes and commits meanwhile.
  const second = job("b");
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(settled, [], "nothing settles before its sync");
  const seen = await client.execute("SELECT id FROM t ORDER BY id");
  assert.deepEqual(seen.rows.map((r) => String(r.id)), ["a", "b"], "batch two ran during batch one's sync");
  releases.shift()!();
  await first;
  assert.deepEqual(settled, ["a"], "batch one settles after its sync, batch two still waits for its own");
  while (releases.length < 1) await new Promise((r) => setTimeout(r, 1));
  releases.shift()!();
  await second;
  assert.deepEqual(settled, ["a", "b"]);
  // A failing sync rejects the jobs of its batch.
  const failing = libsqlFileClient(`file:${dir}/g.db`, {
    walSync: true,
    syncWal: () => Promise.reject(new Error("disk gone")),
  });
  const failingWrites = new GroupCommit(serializedClient(failing));
  await assert.rejects(
    failingWrites.run((tx) => tx.execute({ sql: "INSERT INTO t (id) VALUES (?)", args: ["c"] })),
    /disk gone/,
  );
  failing.close();
  client.close();
  await Deno.remove(dir, { recursive: true });
});
