import assert from "node:assert/strict";
import { tempDir } from "./testing.ts";
import { filePathOf, isReadOnly, libsqlFileClient } from "./libsql_file_client.ts";

Deno.test("file: URLs name their path; hosts and query parameters are refused", () => {
  assert.equal(filePathOf("file:.data/auth.db"), ".data/auth.db");
  assert.equal(filePathOf("file:/tmp/a.db"), "/tmp/a.db");
  assert.equal(filePathOf("file:///tmp/a%20b.db"), "/tmp/a b.db");
  assert.equal(filePathOf("file://localhost/tmp/a.db"), "/tmp/a.db");
  assert.equal(filePathOf("file::memory:"), ":memory:");
  assert.throws(() => filePathOf("file://example.com/a.db"), /names no host/);
  assert.throws(() => filePathOf("file:a.db?mode=ro"), /query parameters/);
});

Deno.test("a row has @libsql/client's shape: names enumerable, indexes and length not, the first of a repeated name wins, a __proto__ column is a plain property", async () => {
  const client = libsqlFileClient("file::memory:");
  try {
    const { rows } = await client.execute(
      `SELECT 'a' AS x, 'b' AS y, 'c' AS x, 'd' AS "__proto__", 'e' AS length`,
    );
    const row = rows[0];
    assert.deepEqual(Object.keys(row), ["x", "y", "__proto__"]);
    assert.equal(row.length, 5);
    assert.deepEqual([row[0], row[1], row[2], row[3], row[4]], ["a", "b", "c", "d", "e"]);
    assert.equal(row.x, "a");
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, "__proto__"), {
      value: "d",
      writable: true,
      enumerable: true,
      configurable: true,
    });
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, "y"), {
      value: "b",
      writable: true,
      enumerable: true,
      configurable: true,
    });
    assert.equal(Object.getOwnPropertyDescriptor(row, 0)?.enumerable, false);
  } finally {
    client.close();
  }
});

Deno.test("queryNamed answers plain rows by name (first of a repeated name, __proto__ a plain property, integers as numbers) and refuses writes", async () => {
  const client = libsqlFileClient("file::memory:");
  try {
    await client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)");
    await client.execute({ sql: "INSERT INTO t (id, name) VALUES (?, ?)", args: [7, "seven"] });
    const [row] = client.queryNamed({
      sql: `SELECT id, name, 'c' AS id, 'd' AS "__proto__", 'e' AS length FROM t WHERE id = ?`,
      args: [7],
    });
    assert.deepEqual(Object.keys(row), ["id", "name", "__proto__", "length"]);
    assert.equal(row.id, 7);
    assert.equal(row.name, "seven");
    assert.equal(row.length, "e");
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(row, "__proto__")?.value, "d");
    assert.equal(row[0 as unknown as string], undefined, "no index properties");
    assert.deepEqual(client.queryNamed({ sql: "SELECT name FROM t WHERE id = ?", args: [8] }), []);
    assert.deepEqual(client.queryNamed({ sql: "SELECT name FROM t WHERE id = ?", args: [8] }, true), []);
    await client.execute({ sql: "INSERT INTO t (id, name) VALUES (?, ?)", args: [8, "eight"] });
    const all = { sql: "SELECT id, name FROM t ORDER BY id", args: [] };
    assert.deepEqual(client.queryNamed(all), [{ id: 7, name: "seven" }, { id: 8, name: "eight" }]);
    assert.deepEqual(client.queryNamed(all, true), [{ id: 7, name: "seven" }], "firstOnly: the first row");
    await client.execute({ sql: "DELETE FROM t WHERE id = ?", args: [8] });
    assert.throws(
      () => client.queryNamed({ sql: "INSERT INTO t (id, name) VALUES (?, ?)", args: [9, "nine"] }),
      /only statements that read/,
    );
    assert.equal((await client.execute("SELECT count(*) AS n FROM t")).rows[0].n, 1, "nothing was written");
  } finally {
    client.close();
  }
});

Deno.test("rows read by name and index, integers as numbers, writes report changes and the new rowid", async () => {
  await using dir = await tempDir();
  const client = libsqlFileClient(`file:${dir.path}/t.db`);
  try {
    await client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, at INTEGER, blob BLOB)");
    const insert = await client.execute({
      sql: "INSERT INTO t (name, at, blob) VALUES (?, ?, ?)",
      args: ["a", 1_700_000_000_000, new Uint8Array([1, 2, 3]).buffer],
    });
    assert.equal(insert.rowsAffected, 1);
    assert.equal(insert.lastInsertRowid, 1n);
    await client.execute({
      sql: "INSERT INTO t (name, at) VALUES (:name, $at)",
      args: { name: "b", $at: 2 },
    });
    for (let round = 0; round < 3; round++) {
      // The same text again: served by the kept statement with new arguments each time.
      const result = await client.execute({
        sql: "SELECT id, name, at, blob FROM t WHERE name = ?",
        args: ["a"],
      });
      assert.deepEqual(result.columns, ["id", "name", "at", "blob"]);
      const row = result.rows[0];
      assert.equal(row.name, "a");
      assert.equal(row[1], "a");
      assert.equal(row.at, 1_700_000_000_000);
      assert.equal(typeof row.id, "number");
      assert.deepEqual(new Uint8Array(row.blob as ArrayBuffer), new Uint8Array([1, 2, 3]));
      assert.deepEqual(Object.keys(row), ["id", "name", "at", "blob"]);
    }
    const other = await client.execute({ sql: "SELECT name FROM t WHERE name = ?", args: ["b"] });
    assert.equal(other.rows[0].name, "b");
  } finally {
    client.close();
  }
});

Deno.test("a constraint violation is an error with SQLite's code and leaves the connection usable", async () => {
  await using dir = await tempDir();
  const client = libsqlFileClient(`file:${dir.path}/t.db`);
  try {
    await client.execute("CREATE TABLE t (name TEXT UNIQUE)");
    await client.execute({ sql: "INSERT INTO t VALUES (?)", args: ["x"] });
    await assert.rejects(
      client.execute({ sql: "INSERT INTO t VALUES (?)", args: ["x"] }),
      (error: Error & { code?: string }) =>
        error.code === "SQLITE_CONSTRAINT_UNIQUE" && error.name === "LibsqlError",
    );
    await assert.rejects(
      client.execute({ sql: "INSERT INTO t VALUES (?)", args: [undefined as never] }),
      TypeError,
    );
    assert.equal((await client.execute("SELECT count(*) AS n FROM t")).rows[0].n, 1);
  } finally {
    client.close();
  }
});

Deno.test("a batch commits all its statements or, when one fails, none", async () => {
  await using dir = await tempDir();
  const client = libsqlFileClient(`file:${dir.path}/t.db`);
  try {
    await client.execute("CREATE TABLE t (name TEXT UNIQUE)");
    await client.batch(
      [{ sql: "INSERT INTO t VALUES (?)", args: ["a"] }, "INSERT INTO t VALUES ('b')"],
      "write",
    );
    await assert.rejects(client.batch(["INSERT INTO t VALUES ('c')", "INSERT INTO t VALUES ('a')"], "write"));
    const names = (await client.execute("SELECT name FROM t ORDER BY name")).rows.map((r) => r.name);
    assert.deepEqual(names, ["a", "b"]);
  } finally {
    client.close();
  }
});

Deno.test("a script changes the schema and kept statements see the new columns", async () => {
  await using dir = await tempDir();
  const client = libsqlFileClient(`file:${dir.path}/t.db`);
  try {
    await client.executeMultiple("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);");
    assert.deepEqual((await client.execute("SELECT * FROM t")).columns, ["a"]);
    await client.executeMultiple("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x';");
    assert.deepEqual((await client.execute("SELECT * FROM t")).columns, ["a", "b"]);
    client.close();
    assert.equal(client.closed, true);
    await assert.rejects(client.execute("SELECT 1"), /CLIENT_CLOSED/);
  } finally {
    client.close();
  }
});

Deno.test("with walSync a committing call resolves only after a sync that began after its commit; reads never sync", async () => {
  await using dir = await tempDir();
  const started: number[] = [];
  let release: (() => void) | undefined;
  const syncWal = () => {
    started.push(performance.now());
    return new Promise<void>((resolve) => (release = resolve));
  };
  const client = libsqlFileClient(`file:${dir.path}/t.db`, { walSync: true, syncWal });
  try {
    const create = client.execute("CREATE TABLE t (n INTEGER)");
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(started.length, 1, "the DDL commit waits for a sync");
    let created = false;
    create.then(() => (created = true));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(created, false, "not before the sync ends");
    release!();
    await create;
    // Reads resolve without a sync.
    assert.equal((await client.execute("SELECT count(*) AS n FROM t")).rows[0].n, 0);
    assert.equal(started.length, 1);
    // Three commits while one sync runs: they share the one queued behind it.
    const first = client.execute({ sql: "INSERT INTO t VALUES (?)", args: [1] });
    await new Promise((r) => setTimeout(r, 5));
    const rest = [2, 3, 4].map((n) => client.execute({ sql: "INSERT INTO t VALUES (?)", args: [n] }));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(started.length, 2, "one sync running");
    release!();
    await first;
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(started.length, 3, "the queued sync started after the first ended");
    release!();
    await Promise.all(rest);
    assert.equal(started.length, 3, "three commits, one shared sync");
  } finally {
    client.close();
  }
});

Deno.test("inside a transaction only the commit syncs", async () => {
  await using dir = await tempDir();
  let syncs = 0;
  const client = libsqlFileClient(`file:${dir.path}/t.db`, {
    walSync: true,
    syncWal: () => {
      syncs++;
      return Promise.resolve();
    },
  });
  try {
    await client.execute("CREATE TABLE t (n INTEGER)");
    const before = syncs;
    await client.execute("BEGIN IMMEDIATE");
    await client.execute({ sql: "INSERT INTO t VALUES (?)", args: [1] });
    await client.execute({ sql: "INSERT INTO t VALUES (?) RETURNING n", args: [2] });
    assert.equal(syncs, before, "no sync before the commit");
    await client.execute("COMMIT");
    assert.equal(syncs, before + 1);
    await client.batch(["INSERT INTO t VALUES (3)", "INSERT INTO t VALUES (4)"], "write");
    assert.equal(syncs, before + 2, "a batch syncs once, after its commit");
  } finally {
    client.close();
  }
});

Deno.test("the real WAL sync keeps every commit across a reopen", async () => {
  await using dir = await tempDir();
  const url = `file:${dir.path}/t.db`;
  const client = libsqlFileClient(url, { walSync: true });
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("PRAGMA synchronous = NORMAL");
  await client.execute("CREATE TABLE t (n INTEGER)");
  await Promise.all(
    Array.from({ length: 50 }, (_, n) => client.execute({ sql: "INSERT INTO t VALUES (?)", args: [n] })),
  );
  client.close();
  const reopened = libsqlFileClient(url);
  try {
    assert.equal((await reopened.execute("SELECT count(*) AS n FROM t")).rows[0].n, 50);
  } finally {
    reopened.close();
  }
});

Deno.test("statements that only read are told apart from those that may write", () => {
  for (
    const sql of [
      "SELECT 1",
      "  select * from t",
      "VALUES (1)",
      "EXPLAIN SELECT 1",
      "WITH x AS (SELECT 1) SELECT * FROM x",
    ]
  ) {
    assert.equal(isReadOnly(sql), true, sql);
  }
  for (
    const sql of [
      "INSERT INTO t VALUES (1)",
      "UPDATE t SET n = 1",
      "WITH x AS (SELECT 1) DELETE FROM t",
      "PRAGMA user_version = 2",
      "COMMIT",
      "CREATE TABLE u (a)",
    ]
  ) {
    assert.equal(isReadOnly(sql), false, sql);
  }
});
