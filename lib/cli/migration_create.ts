/** `deno task db:migration:create <name> [--gateway]`: creates the next numbered, empty migration file. */
import { parseArgs } from "node:util";
import { nextMigrationFileName } from "../migrate.ts";
import { DATABASE_TARGETS } from "../database_targets.ts";
import { isAppError } from "../errors.ts";

const USAGE = `Usage: deno task db:migration:create <name> [--gateway]

Creates migrations/NNNN_<name>.sql (or migrations/gateway/ with --gateway), empty, numbered after the last.`;

async function main(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { gateway: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    console.error(`error: expected exactly one migration name\n\n${USAGE}`);
    return 2;
  }
  const target = DATABASE_TARGETS.find((t) => t.name === (parsed.values.gateway ? "gateway" : "auth"))!;
  await Deno.mkdir(target.migrationsDir, { recursive: true });
  const name = await nextMigrationFileName(target.migrationsDir, parsed.positionals[0]);
  const path = `${target.migrationsDir}/${name}`;
  await Deno.writeTextFile(path, `-- ${name}: forward-only; never edit once applied.\n`, { createNew: true });
  console.log(path);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`error: ${isAppError(error) ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
