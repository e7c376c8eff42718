import assert from "node:assert/strict";
import { createGitHubClient } from "../github/client.ts";
import { cachedRef, createActionResolver } from "./action_resolver.ts";
import type { ActionsLock } from "./actions_lock.ts";

const CACHE: ActionsLock = {
  entries: {
    "actions/checkout@v6.0.1": { repo: "actions/checkout", version: "v6.0.1", sha: "1".repeat(40) },
    "actions/checkout@v6.0.2": { repo: "actions/checkout", version: "v6.0.2", sha: "2".repeat(40) },
  },
};

function serve(handler: (url: URL) => Response) {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (r) => {
    const url = new URL(r.url);
    hits.push(url.pathname);
    return handler(url);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("the compile-time resolver resolves tags through the API, once per tag", async () => {
  await using server = serve(() => Response.json({ object: { sha: "a".repeat(40), type: "commit" } }));
  const warnings: string[] = [];
  const resolve = createActionResolver(
    createGitHubClient({ baseUrl: server.url }),
    CACHE,
    (w) => warnings.push(w),
  );
  assert.equal(await resolve("actions/cache/restore", "v5"), "a".repeat(40));
  assert.equal(await resolve("actions/cache/restore", "v5"), "a".repeat(40));
  assert.deepEqual(server.hits, ["/repos/actions/cache/git/ref/tags/v5"]);
  assert.deepEqual(warnings, []);
});

Deno.test("the compile-time resolver reuses a cached actions-lock ref with a warning under a limited token", async () => {
  await using server = serve(() =>
    Response.json({ message: "Resource not accessible by integration" }, { status: 403 })
  );
  const warnings: string[] = [];
  const client = createGitHubClient({
    baseUrl: server.url,
    token: "limited",
    sleep: () => Promise.resolve(),
  });
  const resolve = createActionResolver(client, CACHE, (w) => warnings.push(w));
  assert.equal(await resolve("actions/checkout", "v6"), "2".repeat(40));
  assert.match(
    warnings[0],
    /cannot resolve actions\/checkout@v6 .*forbidden \(403\).*reusing the cached ref v6\.0\.2/,
  );
  assert.equal(await resolve("octo/unknown", "v1"), undefined);
  assert.match(warnings[1], /cannot resolve octo\/unknown@v1 through the GitHub API/);
});

Deno.test("cachedRef matches the same action and a refining version only", () => {
  assert.equal(cachedRef(CACHE, "actions/checkout", "v6.0.1")?.sha, "1".repeat(40));
  assert.equal(cachedRef(CACHE, "actions/checkout", "v6.0")?.version, "v6.0.2");
  assert.equal(cachedRef(CACHE, "actions/checkout", "v60"), undefined);
  assert.equal(cachedRef(CACHE, "actions/setup-node", "v6"), undefined);
});
