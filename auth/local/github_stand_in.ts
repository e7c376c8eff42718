/**
 * Test-only: sends the service's server-side calls to GitHub (the code exchange at
 * `https://github.com/login/oauth/access_token` and `https://api.github.com/*`) to a loopback stand-in named
 * by `AUTH_GITHUB_STAND_IN`. Better Auth 1.6.23's GitHub provider hard-codes those URLs and fetches them with
 * the global `fetch`, so the end-to-end tests of the deployed configuration (tests/e2e/) need a hook there;
 * the browser reaches the stand-in's authorize page through Chromium's host-resolver rules instead. The
 * configuration refuses any value that is not a loopback origin, so a deployment cannot be pointed at a
 * third party through this key (docs/auth.md explains the choice).
 */

const GITHUB_TOKEN_URL = "https://github.com/login/oauth/access_token";
const GITHUB_API_ORIGIN = "https://api.github.com/";

let installed: string | undefined;

/** The rewritten URL for a GitHub server-side call, or undefined for any other URL. */
export function standInUrl(url: string, standIn: string): string | undefined {
  if (url === GITHUB_TOKEN_URL || url.startsWith(`${GITHUB_TOKEN_URL}?`)) {
    return new URL(url.slice("https://github.com".length), standIn).href;
  }
  if (url.startsWith(GITHUB_API_ORIGIN)) {
    return new URL(url.slice(GITHUB_API_ORIGIN.length - 1), standIn).href;
  }
  return undefined;
}

/** Wraps the global `fetch` once so GitHub's server-side URLs go to `standIn` (a loopback origin). */
export function installGitHubStandIn(standIn: string): void {
  if (installed === standIn) return;
  if (installed !== undefined) throw new Error("a different GitHub stand-in is already installed");
  installed = standIn;
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const target = standInUrl(url, standIn);
    if (!target) return original(input, init);
    return original(input instanceof Request ? new Request(target, input) : target, init);
  };
}
