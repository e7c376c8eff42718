/**
 * Forward-only SQL migrations. Files are `NNNN_name.sql` in one folder, numbered from 0001 without gaps.
 * Applied names and checksums are recorded in `_migrations`; a run applies only what is pending, each file
 * in its own transaction, and refuses to run when history and files disagree (a gap, an edited or deleted
 * applied file), since silently diverging schemas are worse than a stopped deploy.
 */
import type { Client } from "@libsql/client";
import { sha256Hex } from "./crypto.ts";
import { AppError } from "./errors.ts";

/** One migration file. */
export interface MigrationFile {
  /** File name, for example `0001_initial.sql`. */
  name: string;
  /** Sequence number parsed from the name. */
  number: number;
  /** The SQL text. */
  sql: string;
}

/** Result of a migration run. */
export interface MigrationResult {
  /** Names applied by this run, in order. */
  applied: string[];
  /** Names that were already applied. */
  skipped: string[];
}

const FILE_NAME = /^(\d{4})_([a-z0-9][a-z0-9_]*)\.sql$/;

/** The table recording applied migrations. */
export const MIGRATIONS_TABLE = "_migrations";

/** Reads and orders the migration files of `dir`, refusing badly named files and gaps in the numbering. */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const files: MigrationFile[] = [];
  let entries: AsyncIterable<Deno.DirEntry>;
  try {
    entries = Deno.readDir(dir);
    await Deno.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return files;
    throw error;
  }
  for await (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".sql")) continue;
    const match = FILE_NAME.exec(entry.name);
    if (!match) {
      throw new AppError(
        "MIGRATION_INVALID",
        `migration file ${entry.name} in ${dir} is not named NNNN_name.sql (four digits, lowercase snake_case)`,
      );
    }
    files.push({
      name: entry.name,
      number: Number(match[1]),
      sql: await Deno.readTextFile(`${dir}/${entry.name}`),
    });
  }
  files.sort((a, b) => a.number - b.number);
  files.forEach((file, index) => {
    if (file.number !== index + 1) {
      const expected = String(index + 1).padStart(4, "0");
      throw new AppError(
        "MIGRATION_INVALID",
        `migration numbering has a gap or duplicate at ${file.name} in ${dir}: expected ${expected}_*.sql`,
      );
    }
  });
  return files;
}

/** Applies every pending migration in `files` to `client`. Idempotent. */
export async function applyMigrations(client: Client, files: MigrationFile[]): Promise<MigrationResult> {
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
      name TEXT PRIMARY KEY NOT NULL,
      checksum TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    )`,
  );
  const rows = await client.execute(`SELECT name, checksum FROM ${MIGRATIONS_TABLE} ORDER BY name`);
  const recorded = new Map(rows.rows.map((row) => [String(row.name), String(row.checksum)]));
  const byName = new Map(files.map((file) => [file.name, file]));

  for (const name of recorded.keys()) {
    if (!byName.has(name)) {
      throw new AppError(
        "MIGRATION_INVALID",
        `migration ${name} is recorded as applied but its file is missing; restore it (migrations are forward-only)`,
      );
    }
  }

  const result: MigrationResult = { applied: [], skipped: [] };
  for (const file of files) {
    const checksum = sha256Hex(file.sql);
    const previous = recorded.get(file.name);
    if (previous !== undefined) {
      if (previous !== checksum) {
        throw new AppError(
          "MIGRATION_INVALID",
          `migration ${file.name} was edited after it was applied (checksum ${
            previous.slice(0, 12)
          } recorded, ` +
            `${checksum.slice(0, 12)} on disk); add a new migration instead of editing an applied one`,
        );
      }
      result.skipped.push(file.name);
      continue;
    }
    // One exec of BEGIN … COMMIT on the client's own connection: the file and its `_migrations` row are
    // applied together or not at all (the client rolls back an exec that fails half-way).
    const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;
    try {
      await client.executeMultiple(
        `BEGIN IMMEDIATE;\n${file.sql}\n;INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (` +
          `${quote(file.name)}, ${quote(checksum)}, ${Date.now()});\nCOMMIT;`,
      );
    } catch (error) {
      await client.execute("ROLLBACK").catch(() => {});
      throw new AppError("MIGRATION_INVALID", `migration ${file.name} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    result.applied.push(file.name);
  }
  return result;
}

/** Reads `dir` and applies its pending migrations. */
export async function migrateDirectory(client: Client, dir: string): Promise<MigrationResult> {
  return applyMigrations(client, await readMigrationFiles(dir));
}

/** Name of the next migration file in `dir` for a human-given `name` (slugged to snake_case). */
export async function nextMigrationFileName(dir: string, name: string): Promise<string> {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  if (!slug) {
    throw new AppError("BAD_REQUEST", `migration name ${JSON.stringify(name)} has no letters or digits`);
  }
  const files = await readMigrationFiles(dir);
  return `${String(files.length + 1).padStart(4, "0")}_${slug}.sql`;
}
