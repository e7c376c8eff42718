/**
 * What the device grant's modules share (auth/device/device_flow.ts answers the endpoints,
 * auth/device/device_tokens.ts issues the tokens): the stored request, the grant's dependencies, and the
 * client lookup. A leaf, so the two import it and not each other.
 */
import type { Client } from "@libsql/client";
import type { JwtSigner } from "../signing/id_token_signer.ts";

/** The grant type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** A pending device authorization, as stored. */
export interface DeviceRequest {
  clientId: string;
  scopes: string[];
  userCode: string;
  status: "pending" | "approved" | "denied";
  userId?: string;
  /** Epoch ms of the approving sign-in. */
  authTime?: number;
  /** Seconds between polls (grows by 5 on every slow_down). */
  interval: number;
  /** Epoch ms of the last poll. */
  polledAt?: number;
  /** Epoch ms. */
  expiresAt: number;
}

/** What the grant needs. */
export interface DeviceDeps {
  client: Client;
  issuer: string;
  /** `{base}/device`, shown to people. */
  verificationUri: string;
  sign: JwtSigner;
  now?: () => number;
}

function parseList(value: unknown): string[] {
  try {
    const list = JSON.parse(String(value));
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** The client's allowed grant types and scopes, when it may use the device grant. */
export async function deviceClient(client: Client, clientId: string) {
  const result = await client.execute({
    sql: "SELECT grant_types, scopes, disabled, name FROM oauth_client WHERE client_id = ?",
    args: [clientId],
  });
  const row = result.rows[0];
  if (!row || Number(row.disabled ?? 0) === 1) return undefined;
  const grants = row.grant_types === null ? [] : parseList(row.grant_types);
  return {
    device: grants.includes(DEVICE_CODE_GRANT),
    refresh: grants.includes("refresh_token"),
    scopes: row.scopes === null ? undefined : parseList(row.scopes),
    name: row.name === null ? clientId : String(row.name),
  };
}
