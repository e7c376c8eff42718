import assert from "node:assert/strict";
import { openClient } from "./db.ts";
import { migrateDirectory, nextMigrationFileName, readMigrationFiles } from "./migrate.ts";
import { tempDir } from "./testing.ts";

async function setup(files: Record<string, string>) {
  const dir = await tempDir();
  await Deno.mkdir(`${dir.path}/m`);
  for (const [name, sql] of Object.entries(files)) await Deno.writeTextFile(`${dir.path}/m/${name}`, sql);
  const client = await openClient({ url: `file:${dir.path}/test.db` });
  return { dir, client, migrations: `${dir.path}/m` };
}

Deno.test("migrations apply once, in order, and are recorded", async () => {
  const { dir, client, migrations } = await setup({
    "0001_create.sql": "CREATE TABLE a (id INTEGER PRIMARY KEY);",
    "0002_more.sql": "CREATE TABLE b (id INTEGER PRIMARY KEY);\nINSERT INTO a (id) VALUES (1);",
  });
  await using _dir = dir;
  try {
    const first = await migrateDirectory(client, migrations);
    assert.deepEqual(first, { applied: ["0001_create.sql", "0002_more.sql"], skipped: [] });
    const second = await migrateDirectory(client, migrations);
    assert.deepEqual(second, { applied: [], skipped: ["0001_create.sql", "0002_more.sql"] });
    const rows = await client.execute("SELECT count(*) AS n FROM a");
    assert.equal(Number(rows.rows[0].n), 1, "the insert ran exactly once");
    const recorded = await client.execute("SELECT name, applied_at FROM _migrations ORDER BY name");
    assert.deepEqual(recorded.rows.map((r) => r.name), ["0001_create.sql", "0002_more.sql"]);
    assert.equal(typeof recorded.rows[0].applied_at, "number");
  } finally {
    client.close();
  }
});

Deno.test("a gap in the numbering is refused before anything runs", async () => {
  const { dir, client, migrations } = await setup({
    "0001_a.sql": "CREATE TABLE a (id INTEGER);",
    "0003_c.sql": "CREATE TABLE c (id INTEGER);",
  });
  await using _dir = dir;
  try {
    await assert.rejects(
      migrateDirectory(client, migrations),
      /gap or duplicate at 0003_c\.sql.*expected 0002/,
    );
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE name = 'a'");
    assert.equal(tables.rows.length, 0);
  } finally {
    client.close();
  }
});

Deno.test("an edited applied migration is refused", async () => {
  const { dir, client, migrations } = await setup({ "0001_a.sql": "CREATE TABLE a (id INTEGER);" });
  await using _dir = dir;
  try {
    await migrateDirectory(client, migrations);
    await Deno.writeTextFile(`${migrations}/0001_a.sql`, "CREATE TABLE a (id INTEGER, x TEXT);");
    await assert.rejects(migrateDirectory(client, migrations), /0001_a\.sql was edited after it was applied/);
  } finally {
    client.close();
  }
});

Deno.test("a deleted applied migration is refused", async () => {
  const { dir, client, migrations } = await setup({ "0001_a.sql": "CREATE TABLE a (id INTEGER);" });
  await using _dir = dir;
  try {
    await migrateDirectory(client, migrations);
    await Deno.remove(`${migrations}/0001_a.sql`);
    await assert.rejects(migrateDirectory(client, migrations), /recorded as applied but its file is missing/);
  } finally {
    client.close();
  }
});

Deno.test("a failing migration rolls back and is not recorded", async () => {
  const { dir, client, migrations } = await setup({
    "0001_a.sql": "CREATE TABLE a (id INTEGER);\nCREATE TABLE a (id INTEGER);",
  });
  await using _dir = dir;
  try {
    await assert.rejects(migrateDirectory(client, migrations), /0001_a\.sql failed/);
    const recorded = await client.execute("SELECT count(*) AS n FROM _migrations");
    assert.equal(Number(recorded.rows[0].n), 0);
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE name = 'a'");
    assert.equal(tables.rows.length, 0, "the partial migration was rolled back");
  } finally {
    client.close();
  }
});

Deno.test("badly named files are refused and the next name is numbered after the last", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/0001_a.sql`, "");
  assert.equal(await nextMigrationFileName(dir.path, "Add API keys!"), "0002_add_api_keys.sql");
  await Deno.writeTextFile(`${dir.path}/2_bad.sql`, "");
  await assert.rejects(readMigrationFiles(dir.path), /2_bad\.sql .* is not named NNNN_name\.sql/);
});

Deno.test("a missing migrations folder means nothing to apply", async () => {
  await using dir = await tempDir();
  assert.deepEqual(await readMigrationFiles(`${dir.path}/absent`), []);
});
