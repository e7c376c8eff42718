/**
 * Verification of an `id_token_hint` (at the authorization and end-session endpoints): an ID token this
 * issuer signed with one of its keys (read from the `jwks` table, `kid` = row id, as `/jwks` publishes them).
 * Expiry is not checked: a hint may be an old ID token (RP-Initiated Logout §2; OIDC Core §3.1.2.1).
 */
import type { Client } from "@libsql/client";
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";

/** What a verified hint tells. */
export interface IdTokenHint {
  /** The `aud` values (client ids). */
  audiences: string[];
  /** The subject. */
  sub?: string;
  /** The OP session id (`sid`), present for end-session clients. */
  sid?: string;
}

async function publicKeys(client: Client): Promise<JSONWebKeySet> {
  const { rows } = await client.execute("SELECT id, public_key FROM jwks");
  const keys = rows.flatMap((row) => {
    try {
      return [{ ...JSON.parse(String(row.public_key)), kid: String(row.id), alg: "RS256" }];
    } catch {
      return [];
    }
  });
  return { keys };
}

/** The claims of `token` when it is an RS256 ID token of `issuer` signed by one of its keys, else undefined. */
export async function verifyIdTokenHint(
  token: string,
  client: Client,
  issuer: string,
): Promise<IdTokenHint | undefined> {
  try {
    const { payload } = await compactVerify(token, createLocalJWKSet(await publicKeys(client)), {
      algorithms: ["RS256"],
    });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    if (claims.iss !== issuer) return undefined;
    const audiences =
      (typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [])
        .filter((a): a is string => typeof a === "string");
    if (!audiences.length) return undefined;
    return {
      audiences,
      sub: typeof claims.sub === "string" ? claims.sub : undefined,
      sid: typeof claims.sid === "string" ? claims.sid : undefined,
    };
  } catch {
    return undefined;
  }
}
