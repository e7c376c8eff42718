/**
 * The admin console's settings, derived once from the validated gateway configuration: where the OP is, the
 * console's client, its public origin, who is an admin, and how long a session lasts.
 */
import type { GatewayConfig } from "../config/mod.ts";

/** Everything the console needs to know about its own deployment. */
export interface ConsoleSettings {
  /** OIDC issuer of the suite's auth service. */
  issuer: string;
  /** Public origin of the gateway (no trailing slash). */
  origin: string;
  /** The console's OAuth client. */
  clientId: string;
  /** Its secret (HTTP Basic at the token endpoint). */
  clientSecret: string;
  /** Auth user ids and lower-cased emails allowed in. */
  admins: ReadonlySet<string>;
  /** Session lifetime. */
  sessionMs: number;
  /** True on https: cookies are `Secure` and `__Host-` prefixed. */
  secure: boolean;
}

/** Path prefix of the console. */
export const CONSOLE_PATH = "/admin";

/** The console's settings, or undefined when the console keys are not configured (then `/admin` is a 404). */
export function consoleSettings(config: GatewayConfig): ConsoleSettings | undefined {
  if (!config.AUTH_ISSUER || !config.GATEWAY_CONSOLE_URL || !config.GATEWAY_CONSOLE_CLIENT_ID) {
    return undefined;
  }
  const origin = new URL(config.GATEWAY_CONSOLE_URL).origin;
  return Object.freeze({
    issuer: config.AUTH_ISSUER.replace(/\/+$/, ""),
    origin,
    clientId: config.GATEWAY_CONSOLE_CLIENT_ID,
    clientSecret: config.GATEWAY_CONSOLE_CLIENT_SECRET ?? "",
    admins: parseAdmins(config.GATEWAY_ADMINS ?? ""),
    sessionMs: config.GATEWAY_CONSOLE_SESSION_MINUTES * 60_000,
    secure: origin.startsWith("https:"),
  });
}

/** The admin list: comma-separated ids or emails; emails compare case-insensitively. */
export function parseAdmins(raw: string): ReadonlySet<string> {
  return new Set(
    raw.split(",").map((entry) => entry.trim()).filter(Boolean).map((e) =>
      e.includes("@") ? e.toLowerCase() : e
    ),
  );
}

/** True when the signed-in user (`sub`, `email`) is named by the admin list. */
export function isAdmin(admins: ReadonlySet<string>, sub: string, email: string | undefined): boolean {
  return admins.has(sub) || (!!email && admins.has(email.toLowerCase()));
}
