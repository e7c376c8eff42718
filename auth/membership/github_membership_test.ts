import assert from "node:assert/strict";
import { checkMembership, type GitHubApi } from "./github_membership.ts";
import { accessPolicyOf } from "./policy.ts";

const policy = (raw: { orgs?: string; teams?: string; users?: string; allowAny?: boolean }) =>
  accessPolicyOf({ allowAny: false, ttlSeconds: 900, graceSeconds: 3600, ...raw });

/** A fake GitHub: `routes` maps a path (with query) to a response maker; records the URLs asked. */
function fakeApi(routes: Record<string, () => Response>, timeoutMs = 200): GitHubApi & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    timeoutMs,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      asked.push(url.pathname + url.search);
      assert.equal(new Headers(init?.headers).get("authorization"), "Bearer t0ken");
      const route = routes[url.pathname + url.search] ?? routes[url.pathname];
      if (!route) return Promise.resolve(Response.json({ message: "Not Found" }, { status: 404 }));
      if (init?.signal?.aborted) return Promise.reject(new DOMException("aborted", "TimeoutError"));
      return Promise.resolve(route());
    },
  };
}

const active = (org: string) => () => Response.json({ state: "active", organization: { login: org } });

Deno.test("an allowed login is admitted without asking GitHub; anyone else without orgs is refused", async () => {
  const api = fakeApi({});
  assert.deepEqual(await checkMembership(api, "t0ken", "Bob", policy({ users: "bob" })), {
    kind: "member",
    groups: [],
  });
  assert.deepEqual(await checkMembership(api, "t0ken", "eve", policy({ users: "bob" })), {
    kind: "denied",
    reason: "not_a_member",
  });
  assert.deepEqual(api.asked, []);
});

Deno.test("an organisation answer for another organisation, or a 401, never admits", async () => {
  const wrong = fakeApi({ "/user/memberships/orgs/acme": active("evil") });
  assert.equal((await checkMembership(wrong, "t0ken", "a", policy({ orgs: "acme" }))).kind, "unavailable");
  const revoked = fakeApi({ "/user/memberships/orgs/acme": () => Response.json({}, { status: 401 }) });
  assert.deepEqual(await checkMembership(revoked, "t0ken", "a", policy({ orgs: "acme" })), {
    kind: "denied",
    reason: "github_authorization_revoked",
  });
  const limited = fakeApi({
    "/user/memberships/orgs/acme": () =>
      Response.json({ message: "API rate limit exceeded" }, { status: 403 }),
  });
  assert.equal((await checkMembership(limited, "t0ken", "a", policy({ orgs: "acme" }))).kind, "unavailable");
});

Deno.test("a failing lookup makes the whole answer unavailable even when another organisation admits", async () => {
  const api = fakeApi({
    "/user/memberships/orgs/acme": active("Acme"),
    "/user/memberships/orgs/beta": () => new Response("oops", { status: 500 }),
  });
  assert.equal((await checkMembership(api, "t0ken", "a", policy({ orgs: "acme,beta" }))).kind, "unavailable");
});

Deno.test("team pagination follows rel=next on api.github.com only and stops after 20 pages", async () => {
  const page = (n: number, next: string | undefined, teams: { slug: string; org: string }[]) => () =>
    Response.json(teams.map((t) => ({ slug: t.slug, organization: { login: t.org } })), {
      headers: next
        ? { link: `<${next}>; rel="next", <https://api.github.com/user/teams?page=${n}>; rel="last"` }
        : {},
    });
  const two = fakeApi({
    "/user/teams?per_page=100": page(1, "https://api.github.com/user/teams?per_page=100&page=2", [
      { slug: "x", org: "Other" },
    ]),
    "/user/teams?per_page=100&page=2": page(2, undefined, [{ slug: "Platform", org: "ACME" }]),
  });
  assert.deepEqual(await checkMembership(two, "t0ken", "a", policy({ teams: "acme/platform" })), {
    kind: "member",
    groups: ["acme/platform"],
  });
  const offHost = fakeApi({
    "/user/teams?per_page=100": page(1, "https://evil.example/user/teams?page=2", []),
  });
  assert.equal(
    (await checkMembership(offHost, "t0ken", "a", policy({ teams: "acme/platform" }))).kind,
    "unavailable",
  );
  const endless = fakeApi({
    "/user/teams": page(1, "https://api.github.com/user/teams?per_page=100&page=9", []),
  });
  assert.equal(
    (await checkMembership(endless, "t0ken", "a", policy({ teams: "acme/platform" }))).kind,
    "unavailable",
  );
  assert.equal(endless.asked.length, 20);
});

Deno.test("a GitHub that never answers is unavailable after the timeout", async () => {
  const api: GitHubApi = {
    timeoutMs: 50,
    fetch: (_input, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))),
  };
  const started = performance.now();
  assert.deepEqual(await checkMembership(api, "t0ken", "a", policy({ orgs: "acme" })), {
    kind: "unavailable",
    detail: "timeout",
  });
  assert.ok(performance.now() - started < 1000);
});
