/**
 * The rule for a client's redirect URIs (registration, `oauth:clients update`, back-channel logout URIs).
 * A leaf module: registration and the client operations both read it.
 */

/** Host names that count as loopback: plain http is allowed there. */
export const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Problems with a redirect URI: absolute, no fragment, https (http only on loopback), or a private-use
 * scheme with a dot (RFC 8252 §7.1) for public clients; never javascript:, data: or similar.
 */
export function redirectUriProblem(raw: string, isPublic: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not an absolute URL`;
  }
  if (url.hash || raw.includes("#")) return `${raw} must not contain a fragment`;
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:") {
    return LOOPBACK.has(url.hostname)
      ? undefined
      : `${raw} must use https (http is allowed on loopback only)`;
  }
  if (isPublic && /^[a-z][a-z0-9+-]*\.[a-z0-9+.-]+:$/i.test(url.protocol)) return undefined;
  return `${raw} has an unsupported scheme ${url.protocol} (https, loopback http, or a reverse-domain ` +
    `scheme for public native clients)`;
}
