/**
 * The auth service in its deployed configuration on a libSQL file, for the reliability scenarios: a fresh
 * migrated database with one confidential skip-consent client and one signed-in browser session (GitHub
 * sign-in cannot run here), the environment `deno serve auth/main.ts` reads, and the OAuth requests the
 * scenarios drive (authorize → code, code exchange, refresh, userinfo).
 */
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { openAuthDatabase } from "../../auth/better_auth/database.ts";
import { readAuthConfig } from "../../auth/config.ts";
import { registerClient } from "../../auth/operations/register_client.ts";
import { type ServiceProcess, type SpawnOptions, spawnServe } from "./processes.ts";

/** The auth service's edge entry, as `deno serve` runs it in production. */
export const AUTH_ENTRY = new URL("../../auth/main.ts", import.meta.url).pathname;

const BASE = "https://auth.chaos.test";
const VERIFIER = "chaos-verifier-chaos-verifier-chaos-verifier-0123456789";
const REDIRECT = "http://127.0.0.1:9/cb";

/** A prepared auth database and what a client needs to use the service on it. */
export interface AuthFixture {
  /** The temporary directory holding the database. */
  dir: string;
  /** Path of the libSQL file. */
  dbPath: string;
  /** The environment of the deployed configuration on that file. */
  env: Record<string, string>;
  /** Client credentials (HTTP Basic). */
  basic: string;
  /** The registered client's id. */
  clientId: string;
  /** The signed-in session's cookie. */
  cookie: string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** Creates the database in `dir` (a fresh temporary directory when omitted). */
export async function prepareAuth(dir?: string): Promise<AuthFixture> {
  dir ??= await Deno.makeTempDir({ prefix: "switchyard-chaos-auth-" });
  const dbPath = `${dir}/auth.db`;
  const env: Record<string, string> = {
    AUTH_LOCAL_MODE: "false",
    // Deployed mode demands an https issuer; the scenarios reach the same app over loopback http.
    AUTH_BASE_URL: BASE,
    AUTH_COOKIE_DOMAIN: ".chaos.test",
    AUTH_SECRET: "chaos-secret-chaos-secret-chaos-secret-0123",
    SOCIAL_CLIENT_ID: "chaos",
    SOCIAL_CLIENT_SECRET: "chaos",
    // The seeded session stands in for a GitHub sign-in; no org or team gate applies to it.
    AUTH_GITHUB_ALLOW_ANY: "true",
    // A fresh client address per request (see `headers`): the limiter works but does not limit the load.
    AUTH_CLIENT_IP: "header:x-chaos-client",
    AUTH_DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: "error",
  };
  const config = readAuthConfig(env);
  const database = await openAuthDatabase(config.AUTH_DATABASE_URL);
  try {
    await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
    const client = await registerClient(database, config.AUTH_BASE_URL, {
      name: "chaos",
      redirectUris: [REDIRECT],
      skipConsent: true,
    });
    const now = Date.now();
    const sessionToken = crypto.randomUUID().replaceAll("-", "");
    await database.client.batch([
      {
        sql:
          "INSERT INTO user (id, name, email, email_verified, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
        args: ["chaos-user", "Chaos User", "chaos@example.test", now, now],
      },
      {
        sql:
          "INSERT INTO session (id, expires_at, token, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?)",
        args: ["chaos-session", now + 86_400_000, sessionToken, now, now, "chaos-user"],
      },
    ], "write");
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(config.AUTH_SECRET!),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(sessionToken)));
    const signed = `${sessionToken}.${btoa(String.fromCharCode(...mac))}`;
    return {
      dir,
      dbPath,
      env,
      basic: `Basic ${
        btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret!)}`)
      }`,
      clientId: client.client_id,
      cookie: `__Secure-svc.session_token=${encodeURIComponent(signed)}`,
      remove: () => Deno.remove(dir!, { recursive: true }).catch(() => {}),
    };
  } finally {
    database.client.close();
  }
}

/** Starts `deno serve auth/main.ts` on the fixture's database. */
export function spawnAuth(fixture: AuthFixture, options: SpawnOptions = {}): Promise<ServiceProcess> {
  return spawnServe(AUTH_ENTRY, fixture.env, options);
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { "x-chaos-client": crypto.randomUUID(), ...extra };
}

async function challenge(): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(VERIFIER)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Gets `n` authorization codes through the authorize endpoint of the service at `url`. */
export async function authorizeCodes(fixture: AuthFixture, url: string, n: number): Promise<string[]> {
  const codes: string[] = [];
  const code_challenge = await challenge();
  for (let i = 0; i < n; i++) {
    const target = new URL(`${url}/api/auth/oauth2/authorize`);
    target.search = new URLSearchParams({
      client_id: fixture.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid profile email offline_access",
      code_challenge,
      code_challenge_method: "S256",
      state: String(i),
    }).toString();
    const response = await fetch(target, {
      headers: headers({ cookie: fixture.cookie, origin: BASE }),
      redirect: "manual",
    });
    await response.body?.cancel();
    const code = new URL(response.headers.get("location") ?? "http://x/").searchParams.get("code");
    if (!code) throw new Error(`authorize gave no code (${response.status})`);
    codes.push(code);
  }
  return codes;
}

/** The token endpoint's answer: status and parsed body (`undefined` when the connection failed). */
export interface TokenAnswer {
  /** HTTP status, or 0 when no answer arrived (refused, reset, cut). */
  status: number;
  /** The JSON body, when one arrived whole. */
  body?: { access_token?: string; refresh_token?: string; error?: string; error_description?: string };
}

async function tokenRequest(fixture: AuthFixture, url: string, form: Record<string, string>) {
  try {
    const response = await fetch(`${url}/api/auth/oauth2/token`, {
      method: "POST",
      headers: headers({ "content-type": "application/x-www-form-urlencoded", authorization: fixture.basic }),
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    let body: TokenAnswer["body"];
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body } satisfies TokenAnswer;
  } catch {
    return { status: 0 } satisfies TokenAnswer;
  }
}

/** Exchanges a code for tokens. */
export function exchangeCode(fixture: AuthFixture, url: string, code: string): Promise<TokenAnswer> {
  return tokenRequest(fixture, url, {
    grant_type: "authorization_code",
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
  });
}

/** Rotates a refresh token. */
export function refresh(fixture: AuthFixture, url: string, refreshToken: string): Promise<TokenAnswer> {
  return tokenRequest(fixture, url, { grant_type: "refresh_token", refresh_token: refreshToken });
}

/** Whether the service answers its health check. */
export async function healthy(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
    await r.body?.cancel();
    return r.ok;
  } catch {
    return false;
  }
}

/** `PRAGMA integrity_check` of a libSQL file (opened read-write after every process stopped). */
export async function integrityCheck(dbPath: string): Promise<string> {
  const database = await openAuthDatabase(`file:${dbPath}`);
  try {
    const rs = await database.client.execute("PRAGMA integrity_check");
    return rs.rows.map((r) => String(r[0])).join("; ");
  } finally {
    database.client.close();
  }
}
