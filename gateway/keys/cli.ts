/**
 * `deno task gateway:keys create|update|list|revoke`: manages gateway API keys and their limits in
 * GATEWAY_DATABASE_URL (local file by default; its pending migrations are applied first). `create` prints
 * the key once; with `--json` stdout carries only `{"id":"...","key":"..."}`. `list --json` includes each
 * key's current usage (windows from Redis when GATEWAY_REDIS_URL is set).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { databaseUrlSetting, type Env, readConfig } from "@switchyard/lib/config.ts";
import { isLocalDatabaseUrl, openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { type ApiKeyInfo, ApiKeyStore, type KeysDatabase } from "./store.ts";
import { LIMIT_OPTIONS, type LimitFlags, parseLimitFlags } from "./cli_flags.ts";
import { RedisCounters } from "../limits/redis_counters.ts";
import { periodOf } from "../limits/enforcer.ts";
import { periodBounds } from "../limits/policy.ts";
import type { Kysely } from "kysely";
import { ledgerUsage } from "../usage/report.ts";
import type { UsageDatabase } from "../usage/ledger.ts";
import type { BudgetPeriod } from "../limits/policy.ts";
import { runMain } from "@switchyard/lib/cli/support.ts";

const USAGE = `Usage: deno task gateway:keys <command>

  create --name <name> [limits] [--admin] [--json]
                                  create a key and print it once (--json: {"id","key"} only)
  update <id> [limits]            change a key's limits (a value of none removes one)
  list [--json]                   list keys with their limits and usage (never the keys themselves)
  revoke <id>                     revoke a key; the gateway stops accepting it within seconds

Limits (all optional; without them a key is unlimited):
  --rpm N                         requests per minute
  --tpm N                         tokens (input + output) per minute
  --max-concurrency N             requests in flight at once
  --budget-usd X --budget-period day|month
                                  spend per UTC day or calendar month (402 once used)
  --models a,b                    the only models (names, aliases or provider/model) the key may use
  --expires ISO                   refuse the key from this time on
  --admin                         an admin key: calls the admin API (usage report), not the model API

The database is GATEWAY_DATABASE_URL (default file:.data/gateway.db); with GATEWAY_REDIS_URL, list shows
the current windows of every gateway instance, without it what the usage ledger recorded (finished requests
of the last minute, spend this budget period).`;

const cliSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
  GATEWAY_REDIS_URL: z.string().optional(),
});

/**
 * A listed key's usage: the live windows of every instance from Redis, or without Redis what the usage
 * ledger recorded (finished requests in the last minute, spend this budget period).
 */
async function usageOf(keys: ApiKeyInfo[], redisUrl: string | undefined, db: Kysely<UsageDatabase>) {
  const usage = new Map<string, unknown>();
  if (!redisUrl) {
    const now = Date.now();
    for (const key of keys) {
      if (key.revokedAt) continue;
      const { start } = periodBounds((key.budgetPeriod ?? "month") as BudgetPeriod, now);
      usage.set(key.id, { source: "ledger", ...await ledgerUsage(db, key.id, now, start) });
    }
    return usage;
  }
  const counters = new RedisCounters({ url: redisUrl, timeoutMs: 2_000 });
  try {
    for (const key of keys) {
      if (key.revokedAt) continue;
      const period = periodOf((key.budgetPeriod ?? "month") as BudgetPeriod, Date.now());
      const seen = await counters.snapshot(key.id, period.name);
      usage.set(key.id, {
        source: "redis",
        requestsThisWindow: seen.requests.used,
        tokensThisWindow: seen.tokens.used,
        inFlight: seen.inFlight,
        spentUsd: seen.spentMicros / 1e6,
      });
    }
  } finally {
    await counters.close();
  }
  return usage;
}

function limitsText(k: ApiKeyInfo): string {
  const parts: string[] = [];
  if (k.admin) parts.push("admin");
  if (k.rpm !== null) parts.push(`rpm ${k.rpm}`);
  if (k.tpm !== null) parts.push(`tpm ${k.tpm}`);
  if (k.maxConcurrency !== null) parts.push(`concurrency ${k.maxConcurrency}`);
  if (k.budgetUsd !== null) parts.push(`$${k.budgetUsd}/${k.budgetPeriod}`);
  if (k.models) parts.push(`models ${k.models.join(",")}`);
  if (k.expiresAt) parts.push(`expires ${k.expiresAt}`);
  return parts.join(", ") || "unlimited";
}

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
      options: {
        name: { type: "string" },
        json: { type: "boolean" },
        admin: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        ...LIMIT_OPTIONS,
      },
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
  if (!["create", "update", "list", "revoke"].includes(command)) {
    err(`error: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  if (command === "create" && !values.name?.trim()) {
    err(`error: create needs --name <name>\n\n${USAGE}`);
    return 2;
  }
  if ((command === "revoke" || command === "update") && rest.length !== 1) {
    err(`error: ${command} needs exactly one key id\n\n${USAGE}`);
    return 2;
  }
  const limits = parseLimitFlags(values as LimitFlags, command === "update");
  if (!limits.ok) {
    err(limits.problems.map((p) => `error: ${p}`).join("\n"));
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
      const created = await store.create(values.name!.trim(), { ...limits.settings, admin: values.admin });
      if (values.json) out(JSON.stringify(created));
      else {
        out(created.key);
        err(`created key ${created.id} (${values.name}); it is shown only once, store it now`);
      }
      return 0;
    }
    if (command === "update") {
      const existing = (await store.list()).find((k) => k.id === rest[0] && !k.revokedAt);
      const { budgetUsd, budgetPeriod } = limits.settings;
      if (existing && budgetUsd != null && budgetPeriod === undefined && existing.budgetPeriod === null) {
        err("error: --budget-usd needs --budget-period day|month (the key has no budget yet)");
        return 2;
      }
      if (existing && budgetPeriod && budgetUsd === undefined && existing.budgetUsd === null) {
        err("error: --budget-period needs --budget-usd (the key has no budget yet)");
        return 2;
      }
      if (!existing || !await store.update(rest[0], limits.settings)) {
        err(`error: no active key with id ${JSON.stringify(rest[0])}`);
        return 1;
      }
      err(`updated ${rest[0]}; running gateways apply it within 2 × GATEWAY_KEY_CACHE_TTL_MS`);
      return 0;
    }
    if (command === "list") {
      const keys = await store.list();
      const usage = await usageOf(keys, config.GATEWAY_REDIS_URL, db as unknown as Kysely<UsageDatabase>);
      if (values.json) out(JSON.stringify(keys.map((k) => ({ ...k, usage: usage.get(k.id) ?? null }))));
      else if (!keys.length) err("no keys; create one with: deno task gateway:keys create --name <name>");
      else {
        for (const k of keys) {
          out(
            `${k.id}  ${k.prefix}…  ${k.revokedAt ? `revoked ${k.revokedAt}` : "active"}  ${k.name}  (${
              limitsText(k)
            })`,
          );
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

if (import.meta.main) await runMain(() => runKeysCli(Deno.args, Deno.env.toObject()));
