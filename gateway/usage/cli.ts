/**
 * `deno task gateway:usage [--key id] [--since ISO] [--until ISO] [--by key|model|provider|day|user|repo] [--json]`:
 * totals from the usage ledger in GATEWAY_DATABASE_URL (requests, tokens, cost, error rate, p50/p95
 * latency) as a table, or as JSON on stdout.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { databaseUrlSetting, type Env, readConfig } from "@switchyard/lib/config.ts";
import { isLocalDatabaseUrl, openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import type { UsageDatabase } from "./ledger.ts";
import { parseUsageFilters, type UsageReport, usageReport, type UsageTotals } from "./report.ts";
import { runMain } from "@switchyard/lib/cli/support.ts";

const USAGE = `Usage: deno task gateway:usage [--key <id>] [--since <ISO>] [--until <ISO>]
                                 [--by key|model|provider|day|user|repo] [--json]

Totals of the usage ledger (GATEWAY_DATABASE_URL, default file:.data/gateway.db): requests, tokens, cost,
error rate and p50/p95 latency; --since is inclusive, --until exclusive.`;

const cliSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
});

function tableRow(name: string, t: UsageTotals): string[] {
  return [
    name,
    String(t.requests),
    String(t.input_tokens),
    String(t.output_tokens),
    String(t.cache_read_tokens + t.cache_write_tokens),
    `$${t.cost_usd.toFixed(4)}`,
    `${(t.error_rate * 100).toFixed(1)}%`,
    t.p50_latency_ms === null ? "-" : `${t.p50_latency_ms.toFixed(1)}`,
    t.p95_latency_ms === null ? "-" : `${t.p95_latency_ms.toFixed(1)}`,
  ];
}

/** The report as an aligned text table. */
export function formatReport(report: UsageReport): string {
  const rows = [["group", "requests", "input", "output", "cache", "cost", "errors", "p50 ms", "p95 ms"]];
  for (const group of report.groups ?? []) rows.push(tableRow(group.group, group));
  rows.push(tableRow("total", report.total));
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => i ? cell.padStart(widths[i]) : cell.padEnd(widths[i])).join("  "))
    .join("\n");
}

/** Runs the command; returns the exit code. */
export async function runUsageCli(
  args: string[],
  env: Env,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        key: { type: "string" },
        since: { type: "string" },
        until: { type: "string" },
        by: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    err(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const parsed = parseUsageFilters(values, "--");
  if (!parsed.ok) {
    err(parsed.problems.map((p) => `error: ${p}`).join("\n"));
    return 2;
  }
  const config = readConfig(cliSchema, env, "gateway usage configuration");
  const { client, db } = await openDatabase<UsageDatabase>({
    url: config.GATEWAY_DATABASE_URL,
    authToken: config.GATEWAY_DATABASE_AUTH_TOKEN,
  });
  try {
    if (isLocalDatabaseUrl(config.GATEWAY_DATABASE_URL)) {
      await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
    }
    const report = await usageReport(db, parsed.filters);
    out(values.json ? JSON.stringify(report) : formatReport(report));
    return 0;
  } finally {
    await db.destroy();
    client.close();
  }
}

if (import.meta.main) await runMain(() => runUsageCli(Deno.args, Deno.env.toObject()));
