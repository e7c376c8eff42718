/**
 * Signing-key rotation over Better Auth's `jwks` table. The rule every signer and every JWKS copy follows:
 *
 * - A key signs from its `created_at` on. Rotation inserts the new key with `created_at` = now + a publish
 *   lead, so the JWKS (Better Auth lists every row, pending ones included) serves it before it signs
 *   anything: the service's in-memory JWKS copy lives about a second, and a client that cached the JWKS
 *   before the rotation (jose refetches on an unknown `kid` at most every 30 s) has refetched by then.
 * - The keys it replaces get `expires_at` = that same moment (they stop signing exactly when it starts) and
 *   stay published for `RETIRED_KEY_PUBLISH_SECONDS` (auth/signing/lifetimes.ts) after it: the longest lifetime of anything the
 *   service signs, plus slack for signer caches and clock skew.
 * - The current key is the newest row with `created_at <= now` and no past `expires_at`.
 *
 * New keys are made by Better Auth's own `createJwk` (RS256 key pair, private JWK encrypted with the
 * service secret), so the service decrypts them exactly as it decrypts the keys it mints itself.
 */
import type { Client } from "@libsql/client";
import { symmetricDecrypt } from "better-auth/crypto";
import { createJwk, type Jwk } from "better-auth/plugins";
import { commandError } from "../service_errors.ts";
import type { AuthInstance } from "../better_auth/mod.ts";
import { RETIRED_KEY_PUBLISH_SECONDS } from "../signing/lifetimes.ts";

/** Default time between publishing a new key and signing with it. */
export const DEFAULT_PUBLISH_LEAD_SECONDS = 60;
/** The shortest lead accepted: more than the service's in-memory JWKS copy lives (1 s). */
export const MIN_PUBLISH_LEAD_SECONDS = 2;

/** Where a key is in its life. */
export type KeyStatus = "next" | "current" | "previous" | "unpublished";

/** One signing key as the operator sees it (no key material). */
export interface SigningKeyInfo {
  /** The `kid` in token headers and in the JWKS. */
  kid: string;
  /** Status at the time of the listing. */
  status: KeyStatus;
  /** When it signs (or signed) from, ISO 8601. */
  signs_from: string;
  /** When it stops (or stopped) signing; null while no successor exists. */
  stops_signing: string | null;
  /** Until when the JWKS lists it; null for as long as it signs or has no end. */
  published_until: string | null;
}

interface KeyRow {
  id: string;
  createdAt: number;
  expiresAt: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

async function readKeyRows(client: Client): Promise<KeyRow[]> {
  const result = await client.execute("SELECT id, created_at, expires_at FROM jwks");
  return result.rows.map((row) => ({
    id: String(row.id),
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  }));
}

/** The id of the key that signs at `now` (newest active, unexpired row), if any. */
function currentKid(rows: KeyRow[], now: number): string | undefined {
  return rows.filter((r) => r.createdAt <= now && (r.expiresAt === null || r.expiresAt > now))
    .sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))[0]?.id;
}

function describe(row: KeyRow, current: string | undefined, now: number): SigningKeyInfo {
  const graceEnd = row.expiresAt === null ? null : row.expiresAt + RETIRED_KEY_PUBLISH_SECONDS * 1000;
  const status: KeyStatus = row.createdAt > now
    ? "next"
    : row.id === current
    ? "current"
    : graceEnd !== null && graceEnd <= now
    ? "unpublished"
    : "previous";
  return {
    kid: row.id,
    status,
    signs_from: iso(row.createdAt),
    stops_signing: row.expiresAt === null ? null : iso(row.expiresAt),
    published_until: graceEnd === null ? null : iso(graceEnd),
  };
}

const STATUS_ORDER: Record<KeyStatus, number> = { next: 0, current: 1, previous: 2, unpublished: 3 };

/** Every key with its status, newest first within a status. */
export async function listSigningKeys(client: Client, now = Date.now()): Promise<SigningKeyInfo[]> {
  const rows = await readKeyRows(client);
  const current = currentKid(rows, now);
  return rows.sort((a, b) => b.createdAt - a.createdAt).map((row) => describe(row, current, now))
    .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
}

/** A new key pair made by Better Auth's `createJwk` with the service's jwt options and secret. */
async function mintKey(auth: AuthInstance): Promise<Omit<Jwk, "id">> {
  const context = await auth.$context;
  const jwtPlugin = context.options.plugins?.find((plugin) => plugin.id === "jwt");
  const options = (jwtPlugin as { options?: Parameters<typeof createJwk>[1] } | undefined)?.options;
  if (!options?.jwks?.keyPairConfig) throw new Error("the auth configuration has no jwt plugin key config");
  let minted: Omit<Jwk, "id"> | undefined;
  // createJwk only needs the context's secret; its adapter hook hands the key back instead of storing it.
  await createJwk({ context } as unknown as Parameters<typeof createJwk>[0], {
    ...options,
    adapter: {
      createJwk: (key: Omit<Jwk, "id">) => {
        minted = key;
        return Promise.resolve({ ...key, id: "" });
      },
    },
  });
  if (!minted) throw new Error("createJwk returned no key");
  return minted;
}

/** Refuses to write a key the running service could not decrypt (the CLI's secret must be the service's). */
async function assertSecretMatches(client: Client, auth: AuthInstance, kid: string): Promise<void> {
  const row = (await client.execute({ sql: "SELECT private_key FROM jwks WHERE id = ?", args: [kid] }))
    .rows[0];
  const context = await auth.$context;
  try {
    await symmetricDecrypt({ key: context.secretConfig, data: JSON.parse(String(row?.private_key)) });
  } catch {
    throw commandError(
      "SECRET_MISMATCH",
      `AUTH_SECRET does not decrypt the current signing key ${kid}; run the command with the service's ` +
        "AUTH_SECRET (keys are encrypted with it)",
    );
  }
}

/** What a rotation did. */
export interface RotationResult {
  /** The new key. */
  kid: string;
  /** When it starts signing (ISO). */
  signs_from: string;
  /** Keys that stop signing then, and until when they stay published. */
  replaced: { kid: string; published_until: string }[];
  /** Keys past their publication window, deleted by this rotation. */
  deleted: string[];
}

/**
 * Adds a new key that signs `leadSeconds` from now (at once when no key signs yet), ends the signing of the
 * keys it replaces at that moment and deletes keys no longer published (and a pending key that would never
 * sign) — in one write batch.
 */
export async function rotateSigningKey(
  client: Client,
  auth: AuthInstance,
  leadSeconds: number,
  now = Date.now(),
): Promise<RotationResult> {
  const rows = await readKeyRows(client);
  const current = currentKid(rows, now);
  if (current) await assertSecretMatches(client, auth, current);
  const key = await mintKey(auth);
  const kid = crypto.randomUUID().replaceAll("-", "");
  // With no signing key there is nothing a stale JWKS copy could miss: the first key signs at once.
  const signsFrom = current ? now + leadSeconds * 1000 : now;
  // A pending key that would only start signing after the new one never signs: it is dropped.
  const superseded = rows.filter((r) => r.createdAt >= signsFrom);
  const replaced = rows.filter((r) =>
    r.createdAt < signsFrom && (r.expiresAt === null || r.expiresAt > signsFrom)
  );
  const unpublishedBefore = now - RETIRED_KEY_PUBLISH_SECONDS * 1000;
  const deleted = [
    ...superseded,
    ...rows.filter((r) => r.expiresAt !== null && r.expiresAt <= unpublishedBefore),
  ];
  await client.batch([
    { sql: "DELETE FROM jwks WHERE created_at >= ?", args: [signsFrom] },
    {
      sql: "UPDATE jwks SET expires_at = ? WHERE expires_at IS NULL OR expires_at > ?",
      args: [signsFrom, signsFrom],
    },
    {
      sql: "INSERT INTO jwks (id, public_key, private_key, created_at, expires_at) VALUES (?, ?, ?, ?, NULL)",
      args: [kid, key.publicKey, key.privateKey, signsFrom],
    },
    { sql: "DELETE FROM jwks WHERE expires_at IS NOT NULL AND expires_at <= ?", args: [unpublishedBefore] },
  ], "write");
  return {
    kid,
    signs_from: iso(signsFrom),
    replaced: replaced.map((r) => ({
      kid: r.id,
      published_until: iso(signsFrom + RETIRED_KEY_PUBLISH_SECONDS * 1000),
    })),
    deleted: deleted.map((r) => r.id),
  };
}

/**
 * Removes key `kid` from the table (and so from the JWKS) before its time. The current and the next key
 * are refused: tokens would be signed with a key nobody can verify. One conditional DELETE, so a rotation
 * running at the same moment cannot turn the removed key into the signing one.
 */
export async function retireSigningKey(client: Client, kid: string, now = Date.now()): Promise<void> {
  const result = await client.execute({
    sql: `DELETE FROM jwks WHERE id = ? AND created_at <= ? AND id IS NOT (
      SELECT id FROM jwks WHERE created_at <= ? AND (expires_at IS NULL OR expires_at > ?)
      ORDER BY created_at DESC, id DESC LIMIT 1)`,
    args: [kid, now, now, now],
  });
  if (result.rowsAffected === 1) return;
  const rows = await readKeyRows(client);
  const row = rows.find((r) => r.id === kid);
  if (!row) throw commandError("NOT_FOUND", `no signing key with kid ${JSON.stringify(kid)}`);
  const status = describe(row, currentKid(rows, now), now).status;
  throw commandError(
    "KEY_IN_USE",
    status === "next"
      ? `key ${kid} is the next signing key (signs from ${iso(row.createdAt)}); it cannot be retired`
      : `key ${kid} is the current signing key; rotate first (deno task auth:keys rotate), then retire it`,
  );
}
