/**
 * Console sign-ins in progress and console sessions, in the gateway's libSQL database. Browser-held values
 * (the session cookie, the sign-in cookie, the state) are stored only as SHA-256 hashes, so a copy of the
 * database signs nobody in. A sign-in attempt is consumed by its first callback (a replay finds nothing).
 */
import type { Kysely } from "kysely";
import { base64urlEncode, sha256Hex } from "@switchyard/lib/crypto.ts";

/** Database schema of the console tables. */
export interface ConsoleDatabase {
  gateway_console_logins: {
    state_hash: string;
    browser_hash: string;
    verifier: string;
    nonce: string;
    return_to: string;
    created_at: number;
  };
  gateway_console_sessions: {
    id_hash: string;
    user_id: string;
    email: string | null;
    name: string | null;
    csrf: string;
    id_token: string;
    created_at: number;
    expires_at: number;
  };
}

/** A signed-in admin's session. */
export interface ConsoleSession {
  userId: string;
  email: string | null;
  name: string | null;
  /** The token every form of this session carries. */
  csrf: string;
  /** The ID token, for the logout hint. */
  idToken: string;
  expiresAt: number;
}

/** How long a sign-in may take from the redirect to the callback. */
export const LOGIN_TTL_MS = 10 * 60_000;

/** 32 random bytes as base64url. */
export function randomToken(): string {
  return base64urlEncode(crypto.getRandomValues(new Uint8Array(32)));
}

/** Sign-in attempts and sessions. */
export class ConsoleSessionStore {
  #db: () => Promise<Kysely<ConsoleDatabase>>;
  #now: () => number;

  /** `db` opens the gateway database (migrated). */
  constructor(db: () => Promise<Kysely<ConsoleDatabase>>, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  /** Records a sign-in attempt bound to the browser token; stale attempts are dropped on the way. */
  async startLogin(
    browser: string,
    login: { state: string; verifier: string; nonce: string; returnTo: string },
  ): Promise<void> {
    const db = await this.#db();
    const now = this.#now();
    await db.deleteFrom("gateway_console_logins").where("created_at", "<", now - LOGIN_TTL_MS).execute();
    await db.insertInto("gateway_console_logins").values({
      state_hash: sha256Hex(login.state),
      browser_hash: sha256Hex(browser),
      verifier: login.verifier,
      nonce: login.nonce,
      return_to: login.returnTo,
      created_at: now,
    }).execute();
  }

  /** Consumes the attempt of `state` when this browser started it and it is fresh; else undefined. */
  async takeLogin(
    browser: string,
    state: string,
  ): Promise<{ verifier: string; nonce: string; returnTo: string } | undefined> {
    const db = await this.#db();
    const row = await db.deleteFrom("gateway_console_logins").where("state_hash", "=", sha256Hex(state))
      .returningAll().executeTakeFirst();
    if (!row || row.browser_hash !== sha256Hex(browser)) return undefined;
    if (Number(row.created_at) < this.#now() - LOGIN_TTL_MS) return undefined;
    return { verifier: row.verifier, nonce: row.nonce, returnTo: row.return_to };
  }

  /** Creates a session; returns the cookie value (never stored). */
  async create(
    user: { sub: string; email?: string; name?: string; idToken: string },
    ttlMs: number,
  ): Promise<string> {
    const db = await this.#db();
    const id = randomToken();
    const now = this.#now();
    await db.deleteFrom("gateway_console_sessions").where("expires_at", "<", now).execute();
    await db.insertInto("gateway_console_sessions").values({
      id_hash: sha256Hex(id),
      user_id: user.sub,
      email: user.email ?? null,
      name: user.name ?? null,
      csrf: randomToken(),
      id_token: user.idToken,
      created_at: now,
      expires_at: now + ttlMs,
    }).execute();
    return id;
  }

  /** The live session of a cookie value, or undefined (unknown or expired). */
  async get(id: string): Promise<ConsoleSession | undefined> {
    const db = await this.#db();
    const row = await db.selectFrom("gateway_console_sessions").selectAll()
      .where("id_hash", "=", sha256Hex(id)).executeTakeFirst();
    if (!row || Number(row.expires_at) <= this.#now()) return undefined;
    return {
      userId: row.user_id,
      email: row.email,
      name: row.name,
      csrf: row.csrf,
      idToken: row.id_token,
      expiresAt: Number(row.expires_at),
    };
  }

  /** Ends a session. */
  async delete(id: string): Promise<void> {
    const db = await this.#db();
    await db.deleteFrom("gateway_console_sessions").where("id_hash", "=", sha256Hex(id)).execute();
  }
}
