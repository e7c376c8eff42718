/**
 * The service's users for the `auth:users` command: list, show, disable and enable. A disabled user cannot
 * sign in (auth/membership/access.ts refuses the session) and disabling ends every session and grant at
 * once, through the one revocation path (`revokeUserSessions`).
 */
import type { Client } from "@libsql/client";
import { commandError } from "../service_errors.ts";
import { type RevocationResult, revokeUserSessions } from "./sessions.ts";
import { ACCESS_COLUMNS, accessJoin, accessRecordOf } from "../membership/access.ts";

/** A user as the operator sees it (no token). */
export interface UserInfo {
  /** The user id (the `sub` of ID tokens). */
  id: string;
  /** Display name. */
  name: string;
  /** Email address. */
  email: string;
  /** GitHub login, when the user signed in with GitHub since membership checks began. */
  github_login: string | null;
  /** Disabled by an operator. */
  disabled: boolean;
  /** Memberships among the allowed organisations and teams, as of the last check. */
  groups: string[];
  /** Last membership check (ISO) and what it found. */
  membership_checked_at: string | null;
  /** `member`, `denied`, `unavailable`, or null before any check. */
  membership_status: string | null;
  /** Created (ISO). */
  created_at: string;
}

const iso = (value: number | null) => value === null ? null : new Date(value).toISOString();

function toInfo(row: Record<string, unknown>): UserInfo {
  const access = accessRecordOf(row);
  return {
    id: String(row.id),
    name: String(row.name),
    email: String(row.email),
    github_login: access.login,
    disabled: access.disabledAt !== null,
    groups: access.groups,
    membership_checked_at: iso(access.checkedAt),
    membership_status: access.status,
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}

const SELECT = `SELECT u.id, u.name, u.email, u.created_at, ${ACCESS_COLUMNS} FROM user u ${
  accessJoin("u.id")
}`;

/** Every user, oldest first. */
export async function listUsers(client: Client): Promise<UserInfo[]> {
  const result = await client.execute(`${SELECT} ORDER BY u.created_at, u.id`);
  return result.rows.map(toInfo);
}

/** One user; AppError NOT_FOUND when unknown. */
export async function showUser(client: Client, userId: string): Promise<UserInfo> {
  const result = await client.execute({ sql: `${SELECT} WHERE u.id = ?`, args: [userId] });
  if (!result.rows[0]) throw commandError("NOT_FOUND", `no user with id ${JSON.stringify(userId)}`);
  return toInfo(result.rows[0]);
}

/** Disables a user and ends their sessions and grants; returns what was revoked. */
export async function disableUser(
  client: Client,
  userId: string,
  now = Date.now(),
): Promise<RevocationResult> {
  await showUser(client, userId);
  await client.execute({
    sql: "INSERT INTO svc_user_access (user_id, disabled_at) VALUES (?, ?) " +
      "ON CONFLICT (user_id) DO UPDATE SET disabled_at = COALESCE(disabled_at, excluded.disabled_at)",
    args: [userId, now],
  });
  return await revokeUserSessions(client, userId, undefined, "user_disabled");
}

/** Enables a disabled user again (they sign in anew; nothing is restored). */
export async function enableUser(client: Client, userId: string): Promise<void> {
  await showUser(client, userId);
  await client.execute({
    sql: "UPDATE svc_user_access SET disabled_at = NULL WHERE user_id = ?",
    args: [userId],
  });
}
