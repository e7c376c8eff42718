/**
 * `deno task oauth:register --name <n> --redirect-uri <url> [--post-logout-redirect-uri <url>]
 * [--skip-consent] [--enable-end-session] [--public] [--remote] [--json]`: registers an OAuth client directly
 * in the auth database (there is no HTTP registration endpoint). Locally it migrates the `file:` database
 * first; with `--remote` it targets AUTH_DATABASE_URL / AUTH_DATABASE_AUTH_TOKEN and refuses local files.
 */
import { parseArgs } from "node:util";
import { isAppError } from "@switchyard/lib/errors.ts";
import { isDatabaseUrl } from "@switchyard/lib/config.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { openAuthDatabase } from "../database.ts";
import { registerClient, registrationProblems } from "../register_client.ts";

const USAGE = `Usage: deno task oauth:register --name <name> --redirect-uri <url> [options]

Registers an OAuth client (PKCE S256 is always required). Prints the client id and, for confidential
clients, the client secret once; the database keeps only its hash.
  --name <name>                     client name shown on the consent page (required)
  --redirect-uri <url>              exact redirect URI (required; repeatable)
  --post-logout-redirect-uri <url>  exact post-logout redirect URI (repeatable; needs --enable-end-session)
  --skip-consent                    first-party client: no consent page
  --enable-end-session              allow RP-initiated logout
  --public                          the client cannot hold a secret (token auth method "none")
  --remote                          target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)
  --json                            print {"client_id": "...", "client_secret": "..."} only`;

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        name: { type: "string" },
        "redirect-uri": { type: "string", multiple: true },
        "post-logout-redirect-uri": { type: "string", multiple: true },
        "skip-consent": { type: "boolean" },
        "enable-end-session": { type: "boolean" },
        public: { type: "boolean" },
        remote: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const missing = [!values.name && "--name", !values["redirect-uri"]?.length && "--redirect-uri"].filter(
    Boolean,
  );
  if (missing.length) {
    console.error(`error: missing ${missing.join(" and ")}\n\n${USAGE}`);
    return 2;
  }
  const target = DATABASE_TARGETS.find((t) => t.name === "auth")!;
  const url = values.remote ? env.AUTH_DATABASE_URL : env.AUTH_DATABASE_URL || target.defaultUrl;
  if (values.remote && (!url || url.startsWith("file:") || !isDatabaseUrl(url))) {
    console.error(`error: --remote needs AUTH_DATABASE_URL set to the remote libsql:// or https:// URL`);
    return 1;
  }
  if (!values.remote && !url!.startsWith("file:")) {
    console.error(`error: AUTH_DATABASE_URL is remote; pass --remote to register in the remote database`);
    return 1;
  }
  const registration = {
    name: values.name!,
    redirectUris: values["redirect-uri"]!,
    postLogoutRedirectUris: values["post-logout-redirect-uri"],
    skipConsent: values["skip-consent"],
    enableEndSession: values["enable-end-session"],
    public: values.public,
  };
  const problems = registrationProblems(registration);
  if (problems.length) {
    console.error(`error: ${problems.join("\nerror: ")}`);
    return 1;
  }
  const database = await openAuthDatabase(url!, values.remote ? env.AUTH_DATABASE_AUTH_TOKEN : undefined);
  try {
    if (!values.remote) await migrateDirectory(database.client, target.migrationsDir);
    const client = await registerClient(
      database,
      env.AUTH_BASE_URL ?? "http://localhost:37960",
      registration,
    );
    if (values.json) {
      console.log(JSON.stringify(client));
    } else {
      console.log(`client_id:     ${client.client_id}`);
      if (client.client_secret) {
        console.log(`client_secret: ${client.client_secret}`);
        console.log("The secret is shown only now; the database stores its hash.");
      } else {
        console.log("Public client: no secret; PKCE (S256) is required.");
      }
    }
    return 0;
  } finally {
    database.client.close();
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args, Deno.env.toObject()));
  } catch (error) {
    console.error(`error: ${isAppError(error) ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
