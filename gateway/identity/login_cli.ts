/**
 * `deno task gateway:login` and `deno task gateway:token`: a person signs in to the gateway with the suite's
 * OP from a terminal. `login` runs the RFC 8628 device flow (openid-client) for the public client registered
 * with `oauth:register --public --device --audience <gateway client>`, and keeps the refresh token in the
 * user's config directory (`$SWITCHYARD_CONFIG_DIR`, else `$XDG_CONFIG_HOME/switchyard`, else
 * `~/.config/switchyard`; file `gateway-login.json`, mode 0600). `token` prints a fresh access token,
 * refreshing (and storing the rotated refresh token) when the cached one has under a minute left — the
 * command Claude Code's `apiKeyHelper` runs. Neither ever prints the refresh token.
 */
import { parseArgs } from "node:util";
import * as oidc from "openid-client";
import { runMain } from "@switchyard/lib/cli/support.ts";

/** What is stored between runs. */
interface StoredLogin {
  issuer: string;
  client_id: string;
  refresh_token: string;
  access_token?: string;
  /** Epoch seconds. */
  expires_at?: number;
  sub?: string;
}

/** Settings of both commands. */
export interface LoginSettings {
  /** The OP's issuer URL (login only; token reads it from the stored file). */
  issuer?: string;
  /** The device client's id (login only). */
  clientId?: string;
  /** Scopes to ask for (default `openid`, plus `groups` when the OP offers it). */
  scope?: string;
  /** Where `gateway-login.json` lives. */
  configDir: string;
}

/** Where the output goes. */
export interface LoginIo {
  /** Standard output: only the access token, for `token`. */
  out(line: string): void;
  /** Messages for the person. */
  err(line: string): void;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const FILE = "gateway-login.json";

/** The config directory from the environment. */
export function configDirOf(env: Record<string, string | undefined>): string {
  if (env.SWITCHYARD_CONFIG_DIR) return env.SWITCHYARD_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return `${env.XDG_CONFIG_HOME}/switchyard`;
  if (env.APPDATA) return `${env.APPDATA}/switchyard`;
  return `${env.HOME ?? "."}/.config/switchyard`;
}

async function discover(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const url = new URL(issuer);
  // Plain http for a loopback OP only (local mode and tests).
  const insecure = url.protocol === "http:" && LOOPBACK.has(url.hostname);
  return await oidc.discovery(url, clientId, undefined, oidc.None(), {
    ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
}

/** Writes the stored login with mode 0600 (a new file renamed over the old one). */
async function store(dir: string, login: StoredLogin): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = `${dir}/${FILE}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, JSON.stringify(login), { mode: 0o600, createNew: true });
  await Deno.chmod(temp, 0o600).catch(() => {}); // no chmod on Windows
  await Deno.rename(temp, `${dir}/${FILE}`);
}

async function load(dir: string): Promise<StoredLogin | undefined> {
  try {
    const parsed = JSON.parse(await Deno.readTextFile(`${dir}/${FILE}`));
    return typeof parsed?.refresh_token === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the device flow and stores the result; returns the exit code. */
export async function login(settings: LoginSettings, io: LoginIo): Promise<number> {
  if (!settings.issuer || !settings.clientId) {
    io.err(
      "error: gateway:login needs the OP's issuer and the device client id: --issuer <url> --client-id <id>",
    );
    io.err("       (or GATEWAY_LOGIN_ISSUER and GATEWAY_LOGIN_CLIENT_ID)");
    return 2;
  }
  const config = await discover(settings.issuer, settings.clientId);
  const offered = config.serverMetadata().scopes_supported ?? [];
  const scope = settings.scope ?? (offered.includes("groups") ? "openid groups" : "openid");
  const started = await oidc.initiateDeviceAuthorization(config, { scope });
  io.err(`To sign in, open ${started.verification_uri_complete ?? started.verification_uri}`);
  io.err(`and check that it shows the code ${started.user_code}. Waiting…`);
  const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
  if (!tokens.refresh_token) {
    io.err("error: the OP issued no refresh token; is the client registered with the refresh_token grant?");
    return 1;
  }
  const sub = tokens.claims()?.sub;
  await store(settings.configDir, {
    issuer: settings.issuer,
    client_id: settings.clientId,
    refresh_token: tokens.refresh_token,
    access_token: tokens.access_token,
    expires_at: Math.floor(Date.now() / 1000) + (tokens.expiresIn() ?? 0),
    sub,
  });
  io.err(
    `Signed in${sub ? ` as ${sub}` : ""}. deno task gateway:token prints an access token for the gateway.`,
  );
  return 0;
}

/** Prints a fresh access token (refreshing when needed); returns the exit code. */
export async function token(settings: LoginSettings, io: LoginIo, now = Date.now): Promise<number> {
  const saved = await load(settings.configDir);
  if (!saved) {
    io.err("error: not signed in; run deno task gateway:login first");
    return 1;
  }
  if (saved.access_token && saved.expires_at && saved.expires_at * 1000 - now() > 60_000) {
    io.out(saved.access_token);
    return 0;
  }
  const config = await discover(saved.issuer, saved.client_id);
  let tokens;
  try {
    tokens = await oidc.refreshTokenGrant(config, saved.refresh_token);
  } catch (error) {
    const code = error instanceof oidc.ResponseBodyError ? error.error : "unreachable";
    io.err(`error: the sign-in could not be renewed (${code}); run deno task gateway:login again`);
    return 1;
  }
  await store(settings.configDir, {
    ...saved,
    refresh_token: tokens.refresh_token ?? saved.refresh_token,
    access_token: tokens.access_token,
    expires_at: Math.floor(now() / 1000) + (tokens.expiresIn() ?? 0),
  });
  io.out(tokens.access_token);
  return 0;
}

/** The command line: `login [--issuer u] [--client-id id] [--scope s]` or `token`. */
export async function main(
  args: string[],
  env: Record<string, string | undefined>,
  io: LoginIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { issuer: { type: "string" }, "client-id": { type: "string" }, scope: { type: "string" } },
    });
  } catch (error) {
    io.err(`error: ${(error as Error).message}`);
    return 2;
  }
  const [command] = parsed.positionals;
  const settings: LoginSettings = {
    issuer: parsed.values.issuer ?? env.GATEWAY_LOGIN_ISSUER,
    clientId: parsed.values["client-id"] ?? env.GATEWAY_LOGIN_CLIENT_ID,
    scope: parsed.values.scope,
    configDir: configDirOf(env),
  };
  if (command === "login") return await login(settings, io);
  if (command === "token") return await token(settings, io);
  io.err(
    "usage: deno task gateway:login [--issuer <url>] [--client-id <id>] [--scope <scopes>] | deno task gateway:token",
  );
  return 2;
}

if (import.meta.main) {
  await runMain(() => main(Deno.args, Deno.env.toObject(), { out: console.log, err: console.error }));
}
