/**
 * `deno task auth:keys list|rotate [--publish-lead <seconds>] [--json] [--remote]` and
 * `deno task auth:keys --retire <kid>`: the ID-token signing keys (auth/operations/signing_keys.ts).
 */
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { commandBetterAuth, openCommandDatabase, textTable } from "./_command_database.ts";
import { recordAudit } from "../audit/mod.ts";
import {
  DEFAULT_PUBLISH_LEAD_SECONDS,
  listSigningKeys,
  MIN_PUBLISH_LEAD_SECONDS,
  retireSigningKey,
  rotateSigningKey,
} from "../operations/signing_keys.ts";

const USAGE = `Usage: deno task auth:keys <command> [options]

Commands:
  list                      every signing key: kid, status (next, current, previous, unpublished), when it
                            signs from, when it stops signing, until when the JWKS lists it
  rotate                    add a new RS256 key: published in the JWKS now, signing after the publish lead;
                            the current key stops signing then and stays published until its tokens expired
  --retire <kid>            remove a previous key from the JWKS before its time (not the current or next key)
Options:
  --publish-lead <seconds>  rotate: time between publishing the new key and signing with it (default
                            ${DEFAULT_PUBLISH_LEAD_SECONDS}, at least ${MIN_PUBLISH_LEAD_SECONDS}; the first key of an empty table signs at once)
  --json                    machine-readable output
  --remote                  target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN, AUTH_SECRET)`;

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    allowPositionals: true,
    options: {
      retire: { type: "string" },
      "publish-lead": { type: "string" },
      json: { type: "boolean" },
      remote: { type: "boolean" },
    },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const retire = values.retire;
  if (retire !== undefined) {
    if (positionals.length) {
      return usageError(
        `--retire is a command of its own; unexpected ${JSON.stringify(positionals[0])}`,
        USAGE,
      );
    }
    if (!retire.trim()) return usageError("--retire needs a kid", USAGE);
  } else {
    if (positionals.length === 0) {
      return usageError("missing command (list, rotate or --retire <kid>)", USAGE);
    }
    if (!["list", "rotate"].includes(positionals[0])) {
      return usageError(
        `unknown command ${JSON.stringify(positionals[0])} (list, rotate, --retire <kid>)`,
        USAGE,
      );
    }
    if (positionals.length > 1) {
      return usageError(`unexpected argument ${JSON.stringify(positionals[1])}`, USAGE);
    }
  }
  const command = retire !== undefined ? "retire" : positionals[0];
  let lead = DEFAULT_PUBLISH_LEAD_SECONDS;
  if (values["publish-lead"] !== undefined) {
    if (command !== "rotate") return usageError("--publish-lead applies to rotate only", USAGE);
    const raw = values["publish-lead"];
    lead = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(lead >= MIN_PUBLISH_LEAD_SECONDS) || lead > 86_400) {
      return usageError(
        `--publish-lead must be a whole number of seconds from ${MIN_PUBLISH_LEAD_SECONDS} to 86400, got ${
          JSON.stringify(raw)
        }`,
        USAGE,
      );
    }
  }
  const remote = values.remote ?? false;
  if (command === "rotate" && remote && !env.AUTH_SECRET) {
    console.error(
      "error: --remote needs AUTH_SECRET: the deployed service's secret (keys are encrypted with it)",
    );
    return 1;
  }
  const database = await openCommandDatabase(env, remote);
  try {
    if (command === "list") {
      const keys = await listSigningKeys(database.client);
      if (values.json) console.log(JSON.stringify(keys));
      else if (!keys.length) {
        console.log("no signing key yet (the service mints one on first use, or run rotate)");
      } else {
        console.log(textTable(
          ["kid", "status", "signs from", "stops signing", "published until"],
          keys.map((k) => [k.kid, k.status, k.signs_from, k.stops_signing ?? "-", k.published_until ?? "-"]),
        ));
      }
    } else if (command === "rotate") {
      const auth = commandBetterAuth(database, env, remote);
      const result = await rotateSigningKey(database.client, auth, lead);
      await recordAudit(database.client, {
        action: "key_rotate",
        outcome: "success",
        subject: `kid:${result.kid}`,
        actor: "operator",
      });
      if (values.json) console.log(JSON.stringify(result));
      else {
        console.log(`new key ${result.kid}: in the JWKS now, signs from ${result.signs_from}`);
        for (const old of result.replaced) {
          console.log(`key ${old.kid}: stops signing then, published until ${old.published_until}`);
        }
        for (const gone of result.deleted) console.log(`key ${gone}: no longer published, deleted`);
      }
    } else {
      await retireSigningKey(database.client, retire!);
      await recordAudit(database.client, {
        action: "key_revoke",
        outcome: "success",
        subject: `kid:${retire}`,
        actor: "operator",
      });
      if (values.json) console.log(JSON.stringify({ retired: retire }));
      else console.log(`key ${retire} retired: no longer in the JWKS (within a second on running services)`);
    }
    return 0;
  } finally {
    database.client.close();
  }
}

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
