/**
 * `deno task oauth:register --name <n> --redirect-uri <url> [--post-logout-redirect-uri <url>]
 * [--skip-consent] [--enable-end-session] [--public] [--device] [--audience <client_id>]
 * [--backchannel-logout-uri <url> [--backchannel-logout-session-required]] [--remote] [--json]`: registers an
 * OAuth client directly
 * in the auth database (there is no HTTP registration endpoint). Locally it migrates the `file:` database
 * first; with `--remote` it targets AUTH_DATABASE_URL / AUTH_DATABASE_AUTH_TOKEN and refuses local files.
 */
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS, resolveTargetUrl } from "@switchyard/lib/database_targets.ts";
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { openAuthDatabase } from "../better_auth/database.ts";
import { registerClient, registrationProblems } from "../operations/register_client.ts";
import { recordAudit } from "../audit/mod.ts";

const USAGE = `Usage: deno task oauth:register --name <name> --redirect-uri <url> [options]

Registers an OAuth client (PKCE S256 is always required). Prints the client id and, for confidential
clients, the client secret once; the database keeps only its hash.
  --name <name>                     client name shown on the consent page (required)
  --redirect-uri <url>              exact redirect URI (required; repeatable)
  --post-logout-redirect-uri <url>  exact post-logout redirect URI (repeatable; needs --enable-end-session)
  --skip-consent                    first-party client: no consent page
  --enable-end-session              allow RP-initiated logout
  --public                          the client cannot hold a secret (token auth method "none")
  --device                          may use the device authorization grant (RFC 8628); --redirect-uri optional
  --audience <client_id>            a resource server its tokens are for (may introspect them; repeatable)
  --backchannel-logout-uri <url>    OIDC Back-Channel Logout: where logout tokens are POSTed when a session
                                    or grant of this client's users ends
  --backchannel-logout-session-required
                                    the client needs sid in every logout token (it always gets one when the
                                    session is known)
  --remote                          target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)
  --json                            print {"client_id": "...", "client_secret": "..."} only`;

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    options: {
      name: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      "skip-consent": { type: "boolean" },
      "enable-end-session": { type: "boolean" },
      public: { type: "boolean" },
      device: { type: "boolean" },
      audience: { type: "string", multiple: true },
      "backchannel-logout-uri": { type: "string" },
      "backchannel-logout-session-required": { type: "boolean" },
      remote: { type: "boolean" },
      json: { type: "boolean" },
    },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const missing = [
    !values.name && "--name",
    !values["redirect-uri"]?.length && !values.device && "--redirect-uri",
  ].filter(
    Boolean,
  );
  if (missing.length) return usageError(`missing ${missing.join(" and ")}`, USAGE);
  const target = DATABASE_TARGETS.find((t) => t.name === "auth")!;
  const resolved = resolveTargetUrl(target, env, values.remote ?? false);
  if ("error" in resolved) {
    console.error(`error: ${resolved.error}`);
    return 1;
  }
  const registration = {
    name: values.name!,
    redirectUris: values["redirect-uri"] ?? [],
    postLogoutRedirectUris: values["post-logout-redirect-uri"],
    skipConsent: values["skip-consent"],
    enableEndSession: values["enable-end-session"],
    public: values.public,
    device: values.device,
    audience: values.audience,
    backchannelLogoutUri: values["backchannel-logout-uri"],
    backchannelLogoutSessionRequired: values["backchannel-logout-session-required"],
  };
  const problems = registrationProblems(registration);
  if (problems.length) {
    console.error(`error: ${problems.join("\nerror: ")}`);
    return 1;
  }
  const database = await openAuthDatabase(
    resolved.url,
    values.remote ? env.AUTH_DATABASE_AUTH_TOKEN : undefined,
  );
  try {
    if (!values.remote) await migrateDirectory(database.client, target.migrationsDir);
    const client = await registerClient(
      database,
      env.AUTH_BASE_URL ?? "http://localhost:37960",
      registration,
    );
    await recordAudit(database.client, {
      action: "client_register",
      outcome: "success",
      clientId: client.client_id,
      actor: "operator",
    });
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

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
