/**
 * `deno task gateway:keys create --name <n> [--json] | list [--json] | revoke <id>`: manages gateway API
 * keys in GATEWAY_DATABASE_URL (local file by default; its pending migrations are applied first). `create`
 * prints the key once; with `--json` stdout carries only `{"id":"...","key":"..."}`.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { databaseUrlSetting, type Env, readConfig } from "@switchyard/lib/config.ts";
import { isLocalDatabaseUrl, openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { ApiKeyStore, type KeysDatabase } from "./store.ts";

const USAGE = `Usage: deno task gateway:keys <command>

  create --name <name> [--json]   create a key and print it once (--json: {"id","key"} only)
  list [--json]                   list keys (never the keys themselves)
  revoke <id>                     revoke a key; the gateway stops accepting it within seconds

The database is GATEWAY_DATABASE_URL (default file:.data/gateway.db).`;

const cliSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
});

/** Runs the command; returns the exit code. Output goes to `out` (stdout) and `err` (stderr). */
export async function runKeysCli(
  args: string[],
  env: Env,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { name: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    err(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? out : err)(USAGE);
    return values.help ? 0 : 2;
  }
  if (!["create", "list", "revoke"].includes(command)) {
    err(`error: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  if (command === "create" && !values.name?.trim()) {
    err(`error: create needs --name <name>\n\n${USAGE}`);
    return 2;
  }
  if (command === "revoke" && rest.length !== 1) {
    err(`error: revoke needs exactly one key id\n\n${USAGE}`);
    return 2;
  }
  const config = readConfig(cliSchema, env, "gateway keys configuration");
  const { client, db } = await openDatabase<KeysDatabase>({
    url: config.GATEWAY_DATABASE_URL,
    authToken: config.GATEWAY_DATABASE_AUTH_TOKEN,
  });
  try {
    if (isLocalDatabaseUrl(config.GATEWAY_DATABASE_URL)) {
      const target = DATABASE_TARGETS.find((t) => t.name === "gateway")!;
      await migrateDirectory(client, target.migrationsDir);
    }
    const store = new ApiKeyStore(db);
    if (command === "create") {
      const created = await store.create(values.name!.trim());
      if (values.json) out(JSON.stringify(created));
      else {
        out(created.key);
        err(`created key ${created.id} (${values.name}); it is shown only once, store it now`);
      }
      return 0;
    }
    if (command === "list") {
      const keys = await store.list();
      if (values.json) out(JSON.stringify(keys));
      else if (!keys.length) err("no keys; create one with: deno task gateway:keys create --name <name>");
      else {
        for (const k of keys) {
          out(`${k.id}  ${k.prefix}…  ${k.revokedAt ? `revoked ${k.revokedAt}` : "active"}  ${k.name}`);
        }
      }
      return 0;
    }
    if (await store.revoke(rest[0])) {
      err(`revoked ${rest[0]}`);
      return 0;
    }
    err(`error: no active key with id ${JSON.stringify(rest[0])}`);
    return 1;
  } finally {
    await db.destroy();
    client.close();
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await runKeysCli(Deno.args, Deno.env.toObject()));
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
