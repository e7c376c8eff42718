import assert from "node:assert/strict";
import { apiBaseUrl, createGitHubClient, GitHubError, tokenFromEnv } from "./client.ts";

Deno.test("the API base URL follows GITHUB_API_URL, then GH_HOST (enterprise server /api/v3, ghe.com api.)", () => {
  assert.equal(apiBaseUrl({}), "https://api.github.com");
  assert.equal(apiBaseUrl({ GH_HOST: "github.com" }), "https://api.github.com");
  assert.equal(apiBaseUrl({ GH_HOST: "ghe.acme.test" }), "https://ghe.acme.test/api/v3");
  assert.equal(apiBaseUrl({ GH_HOST: "octo.ghe.com" }), "https://api.octo.ghe.com");
  assert.equal(apiBaseUrl({ GH_HOST: "x", GITHUB_API_URL: "https://h/api/v3/" }), "https://h/api/v3");
});

Deno.test("the token comes from GITHUB_TOKEN, then GH_TOKEN", () => {
  assert.equal(tokenFromEnv({ GITHUB_TOKEN: "a", GH_TOKEN: "b" }), "a");
  assert.equal(tokenFromEnv({ GH_TOKEN: "b" }), "b");
  assert.equal(tokenFromEnv({ GITHUB_TOKEN: "" }), undefined);
});

function serve(handler: (request: Request, hits: number) => Response) {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (r) => handler(r, ++hits));
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("the client retries 5xx answers and gives up with a server_error after its retries", async () => {
  await using server = serve((_, hits) =>
    hits < 3 ? new Response("oops", { status: 503 }) : Response.json({ ok: 1 })
  );
  const client = createGitHubClient({ baseUrl: server.url, sleep: () => Promise.resolve() });
  assert.deepEqual(await client.json("/x"), { ok: 1 });
  await using failing = serve(() => new Response("down", { status: 500 }));
  const give = createGitHubClient({ baseUrl: failing.url, sleep: () => Promise.resolve(), retries: 2 });
  await assert.rejects(give.json("/x"), (e) => e instanceof GitHubError && e.code === "server_error");
  assert.equal(failing.hits(), 3);
});

Deno.test("the client waits out a secondary rate limit but reports a primary limit that resets later", async () => {
  const waits: number[] = [];
  await using secondary = serve((_, hits) =>
    hits === 1
      ? Response.json({ message: "secondary rate limit" }, { status: 403, headers: { "retry-after": "2" } })
      : Response.json([])
  );
  const client = createGitHubClient({
    baseUrl: secondary.url,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
  });
  assert.deepEqual(await client.json("/x"), []);
  assert.deepEqual(waits, [2000]);
  const reset = String(Math.floor(Date.now() / 1000) + 3600);
  await using primary = serve(() =>
    Response.json({ message: "API rate limit exceeded" }, {
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
    })
  );
  const limited = createGitHubClient({ baseUrl: primary.url, sleep: () => Promise.resolve() });
  await assert.rejects(limited.json("/x"), (e) => {
    assert.ok(e instanceof GitHubError);
    assert.equal(e.code, "rate_limited");
    assert.match(e.message, /rate limit exceeded; set GITHUB_TOKEN/);
    return true;
  });
  assert.equal(primary.hits(), 1);
});

Deno.test("the client sends the bearer token and never puts it in error messages", async () => {
  let seen = "";
  await using server = serve((r) => {
    seen = r.headers.get("authorization") ?? "";
    return Response.json({ message: "Bad credentials" }, { status: 401 });
  });
  const client = createGitHubClient({ baseUrl: server.url, token: "s3cr3t" });
  await assert.rejects(client.json("/user"), (e) => {
    assert.ok(e instanceof GitHubError && e.code === "unauthorized");
    assert.doesNotMatch(e.message, /s3cr3t/);
    assert.match(e.message, /GET \/user: the token .* was rejected \(401\)/);
    return true;
  });
  assert.equal(seen, "Bearer s3cr3t");
});

Deno.test("the client waits a minute on a secondary rate limit that names no delay", async () => {
  const waits: number[] = [];
  await using server = serve((_, hits) =>
    hits === 1
      ? Response.json({ message: "You have exceeded a secondary rate limit." }, { status: 403 })
      : Response.json({ ok: true })
  );
  const client = createGitHubClient({
    baseUrl: server.url,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
  });
  assert.deepEqual(await client.json("/x"), { ok: true });
  assert.deepEqual(waits, [60_000]);
});

Deno.test("the client gives up on an attempt that does not answer in time and retries it", async () => {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    if (++hits === 1) await new Promise((r) => setTimeout(r, 300));
    return Response.json({ hits });
  });
  try {
    const client = createGitHubClient({
      baseUrl: `http://127.0.0.1:${server.addr.port}`,
      timeoutMs: 100,
      sleep: () => Promise.resolve(),
    });
    assert.deepEqual(await client.json("/slow"), { hits: 2 });
    const never = createGitHubClient({
      baseUrl: `http://127.0.0.1:${server.addr.port}`,
      timeoutMs: 1,
      retries: 0,
    });
    hits = 0;
    await assert.rejects(never.json("/slow"), /no answer within 0\.001 s/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("the client sends its token to the API's origin only, never to an absolute URL on another host", async () => {
  const seen: (string | null)[] = [];
  await using other = serve((request) => {
    seen.push(request.headers.get("authorization"));
    return Response.json({ other: true });
  });
  await using api = serve((request) => {
    seen.push(request.headers.get("authorization"));
    return Response.json({ api: true });
  });
  const client = createGitHubClient({ baseUrl: `${api.url}/api/v3`, token: "s3cr3t" });
  assert.deepEqual(await client.json(`${api.url}/api/v3/x`), { api: true });
  assert.deepEqual(await client.json("/y"), { api: true });
  assert.deepEqual(await client.json(`${other.url}/z`), { other: true });
  assert.deepEqual(seen, ["Bearer s3cr3t", "Bearer s3cr3t", null]);
});
