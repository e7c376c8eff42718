/**
 * `deno task gateway:policies set|list|remove`: the policies of people signed in with the suite's OP, in
 * GATEWAY_DATABASE_URL (local file by default; pending migrations applied first). A subject is one person
 * (`--user <sub>`), an organisation or team of the OP's `groups` claim (`--group <org>` or `<org/team>`), or
 * everyone signed in (`--default-user`); the most specific one applies, and without any a person is refused.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { databaseUrlSetting, type Env, readConfig } from "@switchyard/lib/config.ts";
import { isLocalDatabaseUrl, openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { LIMIT_OPTIONS, type LimitFlags, parseLimitFlags } from "../keys/cli_flags.ts";
import { DEFAULT_USER_SUBJECT, type PoliciesDatabase, type PolicyInfo, PolicyStore } from "./policy_store.ts";
import { runMain } from "@switchyard/lib/cli/support.ts";

const USAGE = `Usage: deno task gateway:policies <command>

  set (--user <sub> | --group <org[/team]> | --default-user) [limits]
                                  create or replace the policy of a person, a group or everyone signed in
  list [--json]                   list the policies
  remove (--user <sub> | --group <org[/team]> | --default-user)
                                  remove a policy

Limits (all optional; a policy without them admits without limits):
  --rpm N  --tpm N  --max-concurrency N
  --budget-usd X --budget-period day|month
  --models a,b

The most specific policy applies: the person's own, then a team, then an organisation, then --default-user;
a person no policy matches is refused (403). Limits and budgets count per person (user:<sub>), shared by
every gateway instance through GATEWAY_REDIS_URL. Running gateways apply a change within
2 × GATEWAY_KEY_CACHE_TTL_MS.`;

const cliSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
});

/** The subject the flags name, or a problem. */
function subjectOf(
  values: { user?: string; group?: string; "default-user"?: boolean },
): string | { problem: string } {
  const named = [values.user !== undefined, values.group !== undefined, !!values["default-user"]].filter(
    Boolean,
  );
  if (named.length !== 1) {
    return { problem: "name exactly one of --user <sub>, --group <org[/team]>, --default-user" };
  }
  if (values.user !== undefined) {
    return /^[\w.@:|-]{1,256}$/.test(values.user)
      ? `user:${values.user}`
      : { problem: `--user: expected the OP's subject id, got ${JSON.stringify(values.user)}` };
  }
  if (values.group !== undefined) {
    const group = values.group.toLowerCase();
    return /^[a-z0-9][a-z0-9-]{0,38}(\/[a-z0-9][a-z0-9._-]{0,99})?$/.test(group) ? `group:${group}` : {
      problem: `--group: expected an organisation or organisation/team, got ${JSON.stringify(values.group)}`,
    };
  }
  return DEFAULT_USER_SUBJECT;
}

function limitsText(p: PolicyInfo): string {
  const l = p.limits ?? {};
  const parts: string[] = [];
  if (l.rpm !== undefined) parts.push(`rpm ${l.rpm}`);
  if (l.tpm !== undefined) parts.push(`tpm ${l.tpm}`);
  if (l.maxConcurrency !== undefined) parts.push(`concurrency ${l.maxConcurrency}`);
  if (l.budgetUsd !== undefined) parts.push(`$${l.budgetUsd}/${l.budgetPeriod}`);
  if (p.models) parts.push(`models ${p.models.join(",")}`);
  return parts.join(", ") || "unlimited";
}

/** Runs the command; returns the exit code. */
export async function runPoliciesCli(
  args: string[],
  env: Env,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  let parsed;
  try {
    const { expires: _, ...limitOptions } = LIMIT_OPTIONS;
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        user: { type: "string" },
        group: { type: "string" },
        "default-user": { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        ...limitOptions,
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
  if (!["set", "list", "remove"].includes(command) || rest.length) {
    err(`error: unknown command ${JSON.stringify(positionals.join(" "))}\n\n${USAGE}`);
    return 2;
  }
  const subject = command === "list" ? "" : subjectOf(values);
  if (typeof subject !== "string") {
    err(`error: ${subject.problem}\n\n${USAGE}`);
    return 2;
  }
  const limits = parseLimitFlags(values as LimitFlags, false);
  if (!limits.ok) {
    err(limits.problems.map((p) => `error: ${p}`).join("\n"));
    return 2;
  }
  const config = readConfig(cliSchema, env, "gateway policies configuration");
  const { client, db } = await openDatabase<PoliciesDatabase>({
    url: config.GATEWAY_DATABASE_URL,
    authToken: config.GATEWAY_DATABASE_AUTH_TOKEN,
  });
  try {
    if (isLocalDatabaseUrl(config.GATEWAY_DATABASE_URL)) {
      await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
    }
    const store = new PolicyStore(db);
    if (command === "set") {
      await store.set(subject, limits.settings);
      err(`set the policy of ${subject}; running gateways apply it within 2 × GATEWAY_KEY_CACHE_TTL_MS`);
      return 0;
    }
    if (command === "remove") {
      if (await store.remove(subject)) {
        err(`removed the policy of ${subject}`);
        return 0;
      }
      err(`error: no policy for ${subject}`);
      return 1;
    }
    const policies = await store.list();
    if (values.json) out(JSON.stringify(policies));
    else if (!policies.length) err("no policies; people signed in with the OP are refused until one is set");
    else for (const p of policies) out(`${p.subject}  (${limitsText(p)})  updated ${p.updatedAt}`);
    return 0;
  } finally {
    await db.destroy();
    client.close();
  }
}

if (import.meta.main) await runMain(() => runPoliciesCli(Deno.args, Deno.env.toObject()));
