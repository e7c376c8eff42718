/** Which browser origins may call `/api/auth/*` with credentials (CORS). */
import type { AuthConfig } from "../config.ts";
import { trustedOriginsFor } from "../better_auth/mod.ts";
import { ownLoopbackOrigins } from "../local/mode.ts";

/**
 * True when `origin` is a first-party app: one of `AUTH_FIRST_PARTY_ORIGINS` when set, else the cookie
 * domain or one of its subdomains over https.
 */
export function originTrusted(config: AuthConfig, origin: string | undefined): boolean {
  if (!origin) return false;
  if (config.AUTH_LOCAL_MODE) return ownLoopbackOrigins(config.AUTH_BASE_URL).includes(origin);
  if (config.AUTH_FIRST_PARTY_ORIGINS) return config.AUTH_FIRST_PARTY_ORIGINS.includes(origin);
  const domain = (config.AUTH_COOKIE_DOMAIN ?? "").replace(/^\./, "").toLowerCase();
  try {
    const url = new URL(origin);
    const host = url.hostname.toLowerCase();
    return url.protocol === "https:" && url.origin === origin &&
      (host === domain || host.endsWith(`.${domain}`)) &&
      trustedOriginsFor(config).length > 0;
  } catch {
    return false;
  }
}
