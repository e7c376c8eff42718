/** `deno task db:migration:create <name> [--gateway]`: creates the next numbered, empty migration file. */
import { nextMigrationFileName } from "../migrate.ts";
import { DATABASE_TARGETS } from "../database_targets.ts";
import { parseCommandLine, runMain, usageError } from "./support.ts";

const USAGE = `Usage: deno task db:migration:create <name> [--gateway]

Creates migrations/NNNN_<name>.sql (or migrations/gateway/ with --gateway), empty, numbered after the last.`;

async function main(args: string[]): Promise<number> {
  const parsed = parseCommandLine({
    args,
    allowPositionals: true,
    options: { gateway: { type: "boolean" } },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1) return usageError("expected exactly one migration name", USAGE);
  const target = DATABASE_TARGETS.find((t) => t.name === (parsed.values.gateway ? "gateway" : "auth"))!;
  await Deno.mkdir(target.migrationsDir, { recursive: true });
  const name = await nextMigrationFileName(target.migrationsDir, parsed.positionals[0]);
  const path = `${target.migrationsDir}/${name}`;
  await Deno.writeTextFile(path, `-- ${name}: forward-only; never edit once applied.\n`, { createNew: true });
  console.log(path);
  return 0;
}

if (import.meta.main) await runMain(() => main(Deno.args));
