/**
 * A local HTTP server on 127.0.0.1 speaking the subset of GitHub's REST API that `awc` uses: releases,
 * tags, git refs and tag objects, workflow runs, jobs, artifacts, log archives (via a redirect, as GitHub
 * does), repository dispatches and release asset downloads. It paginates with `Link` headers, checks the
 * bearer token (401), and can inject faults (403 forbidden, 404, 5xx, secondary rate limits).
 */

/** One repository's data. */
export interface RepoData {
  /** GitHub Releases (tag names); `"forbidden"` answers 403. */
  releases?: { tag_name: string; draft?: boolean; prerelease?: boolean }[] | "forbidden";
  /** Git tags with the commit they name. */
  tags?: { name: string; sha: string }[];
  /** `git/ref/tags/<tag>` answers. */
  refs?: Record<string, { sha: string; type: "commit" | "tag" }>;
  /** Annotated tag objects (`git/tags/<sha>`), each pointing to its target. */
  tagObjects?: Record<string, { sha: string; type: "commit" | "tag" }>;
  /** Workflow runs, newest first. */
  runs?: Record<string, unknown>[];
  /** Jobs per run id. */
  jobs?: Record<number, Record<string, unknown>[]>;
  /** Artifacts per run id (zip bytes). */
  artifacts?: Record<number, { name: string; zip: Uint8Array; expired?: boolean }[]>;
  /** Log archives per run id. */
  logs?: Record<number, Uint8Array>;
  /** Status for POST /dispatches (default 204). */
  dispatchStatus?: number;
}

/** A fault injected for requests whose path matches. */
export interface Fault {
  /** Matched against the path with query. */
  path: RegExp;
  /** Status to answer. */
  status: number;
  /** Extra headers (`retry-after`, `x-ratelimit-remaining`). */
  headers?: Record<string, string>;
  /** JSON message. */
  message?: string;
  /** How many times (default forever). */
  times?: number;
}

/** Server state, mutable by tests. */
export interface GitHubState {
  /** Required bearer token; requests with another token get 401. Undefined: anonymous allowed. */
  token?: string;
  /** Repositories by `owner/repo`. */
  repos: Record<string, RepoData>;
  /** Faults, checked in order. */
  faults: Fault[];
  /** Release assets by path under `/download/`. */
  assets: Record<string, Uint8Array>;
  /** Every request `METHOD path?query`, in order. */
  requests: string[];
  /** Bodies of received dispatches. */
  dispatches: { repo: string; body: unknown }[];
}

/** A running server. */
export interface GitHubServer extends AsyncDisposable {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** Mutable state. */
  state: GitHubState;
}

/** Starts the server on a free port. */
export function startGitHubServer(initial: Partial<GitHubState> = {}): GitHubServer {
  const state: GitHubState = { repos: {}, faults: [], assets: {}, requests: [], dispatches: [], ...initial };
  let url = "";
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request: Request): Promise<Response> => handle(request, state, url),
  );
  url = `http://127.0.0.1:${server.addr.port}`;
  return { url, state, [Symbol.asyncDispose]: () => server.shutdown() };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function page<T>(request: URL, items: T[], key?: string): Response {
  const perPage = Number(request.searchParams.get("per_page") ?? "30");
  const pageNo = Number(request.searchParams.get("page") ?? "1");
  const slice = items.slice((pageNo - 1) * perPage, pageNo * perPage);
  const headers: Record<string, string> = {};
  if (pageNo * perPage < items.length) {
    const next = new URL(request);
    next.searchParams.set("page", String(pageNo + 1));
    headers.link = `<${next}>; rel="next"`;
  }
  return json(key ? { total_count: items.length, [key]: slice } : slice, 200, headers);
}

async function handle(request: Request, state: GitHubState, base: string): Promise<Response> {
  const url = new URL(request.url);
  const target = `${url.pathname}${url.search}`;
  state.requests.push(`${request.method} ${target}`);
  for (const fault of state.faults) {
    if (!fault.path.test(target) || fault.times === 0) continue;
    if (fault.times !== undefined) fault.times--;
    return json({ message: fault.message ?? "fault" }, fault.status, fault.headers);
  }
  if (url.pathname.startsWith("/download/")) {
    const asset = state.assets[url.pathname.slice("/download/".length)];
    return asset ? new Response(asset as Uint8Array<ArrayBuffer>) : json({ message: "Not Found" }, 404);
  }
  const archive = url.pathname.match(/^\/archive\/([^/]+\/[^/]+)\/logs\/(\d+)$/);
  if (archive) {
    const bytes = state.repos[archive[1]]?.logs?.[Number(archive[2])];
    return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>) : json({ message: "Not Found" }, 404);
  }
  if (state.token !== undefined && request.headers.get("authorization") !== `Bearer ${state.token}`) {
    return json({ message: "Bad credentials" }, 401);
  }
  const match = url.pathname.match(/^\/repos\/([^/]+\/[^/]+)(\/.*)$/);
  const repo = match ? state.repos[match[1]] : undefined;
  if (!match || !repo) return json({ message: "Not Found" }, 404);
  const [, slug, rest] = match;
  let m: RegExpMatchArray | null;
  if (rest === "/releases") {
    if (repo.releases === "forbidden") {
      return json({ message: "Resource not accessible by integration" }, 403);
    }
    return page(url, repo.releases ?? []);
  }
  if (rest === "/tags") {
    return page(url, (repo.tags ?? []).map((t) => ({ name: t.name, commit: { sha: t.sha } })));
  }
  if ((m = rest.match(/^\/git\/ref\/tags\/(.+)$/))) {
    const ref = repo.refs?.[decodeURIComponent(m[1])];
    return ref ? json({ ref: `refs/tags/${m[1]}`, object: ref }) : json({ message: "Not Found" }, 404);
  }
  if ((m = rest.match(/^\/git\/tags\/([0-9a-f]{40})$/))) {
    const object = repo.tagObjects?.[m[1]];
    return object ? json({ sha: m[1], object }) : json({ message: "Not Found" }, 404);
  }
  if (rest === "/dispatches" && request.method === "POST") {
    const body = await request.json();
    if ((repo.dispatchStatus ?? 204) !== 204) return json({ message: "Not Found" }, repo.dispatchStatus);
    state.dispatches.push({ repo: slug, body });
    return new Response(null, { status: 204 });
  }
  if (rest === "/actions/runs") return page(url, repo.runs ?? [], "workflow_runs");
  if ((m = rest.match(/^\/actions\/workflows\/([^/]+)\/runs$/))) {
    const file = m[1];
    return page(url, (repo.runs ?? []).filter((r) => String(r.path).endsWith(`/${file}`)), "workflow_runs");
  }
  if ((m = rest.match(/^\/actions\/runs\/(\d+)$/))) {
    const run = repo.runs?.find((r) => r.id === Number(m![1]));
    return run ? json(run) : json({ message: "Not Found" }, 404);
  }
  if ((m = rest.match(/^\/actions\/runs\/(\d+)\/jobs$/))) {
    return page(url, repo.jobs?.[Number(m[1])] ?? [], "jobs");
  }
  if ((m = rest.match(/^\/actions\/runs\/(\d+)\/logs$/))) {
    // GitHub answers with a redirect to a short-lived archive URL.
    return repo.logs?.[Number(m[1])]
      ? new Response(null, { status: 302, headers: { location: `${base}/archive/${slug}/logs/${m[1]}` } })
      : json({ message: "Not Found" }, 404);
  }
  if ((m = rest.match(/^\/actions\/runs\/(\d+)\/artifacts$/))) {
    const runId = Number(m[1]);
    return page(
      url,
      (repo.artifacts?.[runId] ?? []).map((a, i) => ({
        id: runId * 100 + i,
        name: a.name,
        expired: Boolean(a.expired),
        archive_download_url: `${base}/repos/${slug}/actions/artifacts/${runId * 100 + i}/zip`,
      })),
      "artifacts",
    );
  }
  if ((m = rest.match(/^\/actions\/artifacts\/(\d+)\/zip$/))) {
    const id = Number(m[1]);
    const artifact = repo.artifacts?.[Math.floor(id / 100)]?.[id % 100];
    return artifact
      ? new Response(artifact.zip as Uint8Array<ArrayBuffer>)
      : json({ message: "Not Found" }, 404);
  }
  return json({ message: "Not Found" }, 404);
}
