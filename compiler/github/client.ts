/**
 * The one small GitHub REST client of `awc`: token and host from the environment, retries on 5xx and on
 * secondary rate limits, pagination through `Link` headers, and errors as values with messages that say
 * what to do about a 401, 403 or 404.
 */

/** Stable codes of a failed GitHub request. */
export type GitHubErrorCode =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "rate_limited"
  | "server_error"
  | "network"
  | "http_error";

/** A GitHub request that failed; `message` is safe to print (it never contains the token). */
export class GitHubError extends Error {
  /** Stable code. */
  readonly code: GitHubErrorCode;
  /** HTTP status, 0 for network failures. */
  readonly status: number;
  constructor(code: GitHubErrorCode, status: number, message: string) {
    super(message);
    this.name = "GitHubError";
    this.code = code;
    this.status = status;
  }
}

/** Settings of a client. */
export interface GitHubClientOptions {
  /** REST base URL without a trailing slash, e.g. `https://api.github.com` or `https://ghe.example/api/v3`. */
  baseUrl: string;
  /** Token sent as `Authorization: Bearer`; undefined means anonymous. */
  token?: string;
  /** The fetch to use (tests pass the global one pointed at a local server). */
  fetch?: typeof fetch;
  /** Waits between retries; tests pass a fast one. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** Time allowed for the response headers of one attempt (default 60 s). */
  timeoutMs?: number;
}

/** Options of one request. */
export interface RequestOptions {
  /** HTTP method (default GET). */
  method?: string;
  /** JSON body. */
  body?: unknown;
  /** Accept header (default the GitHub JSON media type). */
  accept?: string;
}

/** The client used by every command. */
export interface GitHubClient {
  /** The REST base URL in use. */
  readonly baseUrl: string;
  /** Whether a token is configured. */
  readonly authenticated: boolean;
  /** Sends a request and parses a JSON answer (undefined for 204). */
  json<T>(path: string, options?: RequestOptions): Promise<T>;
  /** Sends a request and returns the raw bytes (follows redirects, e.g. for log archives). */
  bytes(path: string, options?: RequestOptions): Promise<Uint8Array>;
  /** Follows `Link: rel="next"` pages of a list endpoint, up to `maxItems` items. */
  paginate<T>(path: string, options?: { maxItems?: number; itemsKey?: string }): Promise<T[]>;
}

/** Derives the REST base URL: `GITHUB_API_URL`, else `GH_HOST` (enterprise `https://<host>/api/v3`). */
export function apiBaseUrl(env: Record<string, string | undefined>): string {
  const explicit = env.AWC_GITHUB_API_URL ?? env.GITHUB_API_URL;
  if (explicit) return explicit.replace(/\/+$/, "");
  const host = env.GH_HOST?.trim();
  if (!host || host === "github.com") return "https://api.github.com";
  if (host.endsWith(".ghe.com")) return `https://api.${host}`;
  return `https://${host}/api/v3`;
}

/** Reads the token from `GITHUB_TOKEN`, then `GH_TOKEN`. */
export function tokenFromEnv(env: Record<string, string | undefined>): string | undefined {
  return env.GITHUB_TOKEN || env.GH_TOKEN || undefined;
}

/** Creates a client from explicit options. */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retries = options.retries ?? 3;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const base = options.baseUrl.replace(/\/+$/, "");
  const baseOrigin = new URL(base).origin;

  async function send(path: string, init: RequestOptions): Promise<Response> {
    const url = /^https?:\/\//.test(path) ? path : `${base}${path.startsWith("/") ? "" : "/"}${path}`;
    const headers: Record<string, string> = {
      "Accept": init.accept ?? "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
      "User-Agent": "awc",
    };
    // Absolute URLs come from answers (Link pages, archive URLs): the token goes to the API's origin only.
    if (options.token && new URL(url).origin === baseOrigin) {
      headers.Authorization = `Bearer ${options.token}`;
    }
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    for (let attempt = 0;; attempt++) {
      let response: Response;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        response = await doFetch(url, {
          method: init.method ?? "GET",
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: controller.signal,
        });
      } catch (error) {
        if (attempt < retries) {
          await sleep(backoff(attempt));
          continue;
        }
        const reason = controller.signal.aborted
          ? `no answer within ${timeoutMs / 1000} s`
          : (error as Error).message;
        throw new GitHubError("network", 0, `cannot reach ${base}: ${reason}`);
      } finally {
        clearTimeout(timer);
      }
      if (response.ok) return response;
      const wait = await retryDelay(response, attempt);
      if (wait !== undefined && attempt < retries) {
        await response.body?.cancel();
        await sleep(wait);
        continue;
      }
      throw await toError(response, init.method ?? "GET", path, Boolean(options.token));
    }
  }

  return {
    baseUrl: base,
    authenticated: Boolean(options.token),
    async json<T>(path: string, init: RequestOptions = {}): Promise<T> {
      const response = await send(path, init);
      if (response.status === 204) {
        await response.body?.cancel();
        return undefined as T;
      }
      return await response.json() as T;
    },
    async bytes(path: string, init: RequestOptions = {}): Promise<Uint8Array> {
      const response = await send(path, { accept: "application/octet-stream", ...init });
      return new Uint8Array(await response.arrayBuffer());
    },
    async paginate<T>(path: string, opts: { maxItems?: number; itemsKey?: string } = {}): Promise<T[]> {
      const max = opts.maxItems ?? Infinity;
      const items: T[] = [];
      let next: string | undefined = path;
      while (next && items.length < max) {
        const response = await send(next, {});
        const page = await response.json() as unknown;
        const list = (opts.itemsKey ? (page as Record<string, unknown>)[opts.itemsKey] : page) as T[];
        if (!Array.isArray(list)) break;
        items.push(...list);
        next = nextLink(response.headers.get("link"));
      }
      return items.slice(0, max);
    },
  };
}

function backoff(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8000);
}

/** Milliseconds to wait before retrying, or undefined when the failure is final. */
async function retryDelay(response: Response, attempt: number): Promise<number | undefined> {
  if (response.status >= 500) return backoff(attempt);
  if (response.status !== 403 && response.status !== 429) return undefined;
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter)) return Math.min(Number(retryAfter) * 1000, 60_000);
  if (response.headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(response.headers.get("x-ratelimit-reset") ?? "0") * 1000 - Date.now();
    // A primary limit that resets far in the future is reported, not waited for.
    return reset > 60_000 ? undefined : Math.max(reset, 1000);
  }
  if (response.status === 429) return backoff(attempt);
  // A secondary rate limit without headers: GitHub asks clients to wait at least a minute.
  const text = await response.clone().text().catch(() => "");
  return /secondary rate limit/i.test(text) ? 60_000 : undefined;
}

function nextLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = part.match(/<([^>]+)>\s*;\s*rel="next"/);
    if (match) return match[1];
  }
  return undefined;
}

async function toError(response: Response, method: string, path: string, hasToken: boolean) {
  let detail = "";
  try {
    const body = await response.json() as { message?: string };
    if (typeof body?.message === "string") detail = body.message.slice(0, 200);
  } catch { /* not JSON */ }
  const what = `${method} ${path.replace(/^https?:\/\/[^/]+/, "")}`;
  const suffix = detail ? ` (GitHub said: ${detail})` : "";
  switch (response.status) {
    case 401:
      return new GitHubError(
        "unauthorized",
        401,
        hasToken
          ? `${what}: the token in GITHUB_TOKEN/GH_TOKEN was rejected (401): it is invalid or expired${suffix}`
          : `${what}: authentication required (401): set GITHUB_TOKEN or GH_TOKEN${suffix}`,
      );
    case 403:
    case 429:
      if (response.headers.get("x-ratelimit-remaining") === "0" || /rate limit/i.test(detail)) {
        return new GitHubError(
          "rate_limited",
          response.status,
          `${what}: GitHub API rate limit exceeded${hasToken ? "" : "; set GITHUB_TOKEN for a higher limit"}`,
        );
      }
      return new GitHubError(
        "forbidden",
        403,
        `${what}: forbidden (403): the token lacks a permission this request needs${suffix}`,
      );
    case 404:
      return new GitHubError(
        "not_found",
        404,
        `${what}: not found (404): the resource does not exist or the token cannot see it${suffix}`,
      );
    default:
      return new GitHubError(
        response.status >= 500 ? "server_error" : "http_error",
        response.status,
        `${what}: GitHub answered ${response.status}${suffix}`,
      );
  }
}
