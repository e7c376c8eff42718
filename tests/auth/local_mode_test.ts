/** Local mode rules (issue 4): loopback hosts, Origin vs the dev header, cookie prefixes, sign-out, limits. */
import assert from "node:assert/strict";
import { startAuthService } from "./harness.ts";
import { readAuthConfig } from "../../auth/config.ts";
import { localHealthRefused } from "../../auth/main.ts";

const DEV_HEADER = "x-svc-auth-dev-origin";

function signIn(url: string, headers: Record<string, string>) {
  return fetch(`${url}/api/auth/local-developer/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: "{}",
  });
}

function setCookies(response: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) out.set(line.split("=")[0], line);
  return out;
}

function cookiePair(line: string): string {
  return line.split(";")[0];
}

Deno.test("local mode answers every loopback host, with or without the port", async () => {
  await using svc = await startAuthService();
  const port = new URL(svc.url).port;
  for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
    for (const hostHeader of [host, `${host}:${port}`]) {
      for (const path of ["/api/health", "/sign-in", "/api/auth/.well-known/openid-configuration"]) {
        const response = await svc.handle(
          new Request(`${svc.url}${path}`, { headers: { host: hostHeader } }),
        );
        assert.equal(response.status, 200, `${hostHeader}${path}`);
        await response.body?.cancel();
      }
    }
  }
});

Deno.test("local mode answers any other Host with a plain-text 403 naming the host and the address to use", async () => {
  await using svc = await startAuthService();
  for (const host of ["evil.test", "192.168.1.20", "localhost.evil.test", "localhost:1234", "[::2]"]) {
    for (
      const path of ["/api/health", "/sign-in", "/api/auth/.well-known/openid-configuration", "/style.css"]
    ) {
      const response = await svc.handle(new Request(`${svc.url}${path}`, { headers: { host } }));
      assert.equal(response.status, 403, `${host}${path}`);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
      const text = await response.text();
      assert.ok(text.includes(JSON.stringify(host)), text);
      assert.ok(text.includes(svc.url), "names the address to use");
    }
  }
});

Deno.test("the edge entrypoint's early health answer honours the local host allow-list", () => {
  const env = { AUTH_LOCAL_MODE: "true", AUTH_BASE_URL: "http://localhost:37960" };
  const refused = localHealthRefused(
    new Request("http://localhost:37960/api/health", { headers: { host: "attacker.test" } }),
    env,
  );
  assert.equal(refused?.status, 403);
  assert.equal(
    localHealthRefused(
      new Request("http://localhost:37960/api/health", { headers: { host: "[::1]:37960" } }),
      env,
    ),
    undefined,
  );
  assert.equal(
    localHealthRefused(new Request("http://x/api/health", { headers: { host: "attacker.test" } }), {}),
    undefined,
    "outside local mode health answers any host",
  );
});

Deno.test("a spoofed Host from a loopback peer over TCP is refused", async () => {
  await using svc = await startAuthService();
  const port = Number(new URL(svc.url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      "GET /api/health HTTP/1.1\r\nHost: rebind.evil.test\r\nConnection: close\r\n\r\n",
    ),
  );
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    chunks.push(buffer.slice(0, n));
  }
  conn.close();
  const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  assert.match(text, /^HTTP\/1\.1 403/);
  assert.ok(text.includes('"rebind.evil.test"'));
});

Deno.test("local mode serves IPv6 loopback ([::1])", async (t) => {
  let svc;
  try {
    svc = await startAuthService({}, "::1");
  } catch {
    t.name; // IPv6 loopback unavailable on this machine
    console.warn("IPv6 loopback unavailable; skipped");
    return;
  }
  await using _ = svc;
  const health = await fetch(`${svc.url}/api/health`);
  assert.equal(health.status, 200);
  await health.body?.cancel();
  const response = await signIn(svc.url, { origin: svc.url });
  assert.equal(response.status, 200, "the browser origin http://[::1]:port is accepted");
  await response.body?.cancel();
});

Deno.test("an Origin different from x-svc-auth-dev-origin gets 403 INVALID_ORIGIN naming both", async () => {
  await using svc = await startAuthService();
  const response = await signIn(svc.url, {
    origin: "http://evil.test",
    [DEV_HEADER]: "http://localhost:5173",
  });
  assert.equal(response.status, 403);
  const body = await response.json();
  assert.equal(body.code, "INVALID_ORIGIN");
  assert.ok(
    body.message.includes("http://evil.test") && body.message.includes("http://localhost:5173"),
    body.message,
  );
  const noHeader = await signIn(svc.url, { origin: "http://localhost:5173" });
  assert.equal(noHeader.status, 403, "without the header only the service's own origins are accepted");
  const noHeaderBody = await noHeader.json();
  assert.equal(noHeaderBody.code, "INVALID_ORIGIN");
  assert.ok(noHeaderBody.message.includes(svc.url), noHeaderBody.message);
  const badHeader = await signIn(svc.url, { origin: "http://localhost:5173", [DEV_HEADER]: "not an origin" });
  assert.equal(badHeader.status, 403);
  await badHeader.body?.cancel();
  for (
    const path of ["/consent", "/sign-in/local-developer", "/api/auth/sign-out", "/api/auth/oauth2/token"]
  ) {
    const r = await fetch(`${svc.url}${path}`, { method: "POST", headers: { origin: "http://evil.test" } });
    assert.equal(r.status, 403, path);
    await r.body?.cancel();
  }
});

Deno.test("a matching Origin is trusted for the request, and a loopback caller may omit Origin", async () => {
  await using svc = await startAuthService();
  const matching = await signIn(svc.url, {
    origin: "https://app.localhost:5173",
    [DEV_HEADER]: "https://app.localhost:5173",
  });
  assert.equal(matching.status, 200);
  await matching.body?.cancel();
  const own = await signIn(svc.url, { origin: svc.url });
  assert.equal(own.status, 200);
  await own.body?.cancel();
  const omitted = await signIn(svc.url, {});
  assert.equal(omitted.status, 200, "loopback peer without Origin");
  await omitted.body?.cancel();
  const remotePeer = await svc.handle(
    new Request(`${svc.url}/api/auth/local-developer/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    }),
    "10.1.2.3",
  );
  assert.equal(remotePeer.status, 403, "a non-loopback peer must send Origin");
  assert.equal((await remotePeer.json()).code, "INVALID_ORIGIN");
});

Deno.test("cookies are host-only and __Secure- prefixed exactly when the dev origin is https", async () => {
  await using svc = await startAuthService();
  const secure = setCookies(
    await signIn(svc.url, { origin: "https://app.localhost", [DEV_HEADER]: "https://app.localhost" }),
  );
  const secureLine = secure.get("__Secure-svc.session_token")!;
  assert.ok(secureLine, [...secure.keys()].join());
  assert.match(secureLine, /;\s*Secure/i);
  assert.match(secureLine, /;\s*HttpOnly/i);
  assert.match(secureLine, /;\s*SameSite=Lax/i);
  assert.doesNotMatch(secureLine, /Domain=/i, "host-only");
  const plain = setCookies(
    await signIn(svc.url, { origin: "http://localhost:5173", [DEV_HEADER]: "http://localhost:5173" }),
  );
  const plainLine = plain.get("svc.session_token")!;
  assert.ok(plainLine);
  assert.doesNotMatch(plainLine, /;\s*Secure/i);
  assert.doesNotMatch(plainLine, /Domain=/i);
  assert.ok(
    !plain.has("__Secure-svc.session_token") || /max-age=0/i.test(plain.get("__Secure-svc.session_token")!),
  );

  const bySecureName = await fetch(`${svc.url}/api/auth/get-session`, {
    headers: { cookie: cookiePair(secureLine) },
  });
  assert.equal(
    (await bySecureName.json())?.user?.id,
    "local-developer",
    "the cookie name selects secure cookies",
  );
  const byPlainName = await fetch(`${svc.url}/api/auth/get-session`, {
    headers: { cookie: cookiePair(plainLine) },
  });
  assert.equal((await byPlainName.json())?.user?.id, "local-developer");
});

Deno.test("a sign-in over http expires a __Secure- session cookie that would be read before it", async () => {
  await using svc = await startAuthService();
  const secure = setCookies(await signIn(svc.url, { [DEV_HEADER]: "https://app.localhost" }));
  const secureCookie = cookiePair(secure.get("__Secure-svc.session_token")!);
  const overHttp = setCookies(
    await signIn(svc.url, { [DEV_HEADER]: "http://localhost:5173", cookie: secureCookie }),
  );
  assert.ok(overHttp.get("svc.session_token") && !/max-age=0/i.test(overHttp.get("svc.session_token")!));
  assert.match(overHttp.get("__Secure-svc.session_token") ?? "", /Max-Age=0/i);
});

Deno.test("a local sign-out ends the session of every session cookie, plain and __Secure-", async () => {
  await using svc = await startAuthService();
  const plain = cookiePair(
    setCookies(await signIn(svc.url, { [DEV_HEADER]: "http://localhost:5173" })).get("svc.session_token")!,
  );
  const secure = cookiePair(
    setCookies(await signIn(svc.url, { [DEV_HEADER]: "https://app.localhost" })).get(
      "__Secure-svc.session_token",
    )!,
  );
  const count = async () =>
    Number((await svc.database.client.execute("SELECT count(*) AS n FROM session")).rows[0].n);
  assert.equal(await count(), 2);
  const response = await fetch(`${svc.url}/api/auth/sign-out`, {
    method: "POST",
    headers: {
      [DEV_HEADER]: "http://localhost:5173",
      origin: "http://localhost:5173",
      cookie: `${plain}; ${secure}`,
      "content-type": "application/json",
    },
    body: "{}",
  });
  assert.equal(response.status, 200);
  const cleared = setCookies(response);
  assert.match(cleared.get("svc.session_token") ?? "", /Max-Age=0/i);
  assert.match(cleared.get("__Secure-svc.session_token") ?? "", /Max-Age=0/i);
  assert.equal(await count(), 0, "both sessions ended");
});

Deno.test("local /api/auth calls return the refreshed session cookie to the app server that asked", async () => {
  await using svc = await startAuthService();
  const cookie = cookiePair(
    setCookies(await signIn(svc.url, { [DEV_HEADER]: "http://localhost:5173" })).get("svc.session_token")!,
  );
  await svc.database.client.execute({
    sql: "UPDATE session SET expires_at = ?",
    args: [Date.now() + 3600_000],
  });
  const response = await fetch(`${svc.url}/api/auth/get-session`, {
    headers: { cookie, [DEV_HEADER]: "http://localhost:5173" },
  });
  assert.equal((await response.json())?.user?.id, "local-developer");
  assert.ok(setCookies(response).has("svc.session_token"), "the refreshed cookie is in the response");
});

Deno.test("local mode refuses to start with a non-loopback base URL, a cookie domain or a remote database", () => {
  assert.throws(
    () =>
      readAuthConfig({
        AUTH_LOCAL_MODE: "true",
        AUTH_BASE_URL: "https://auth.example.com",
        AUTH_COOKIE_DOMAIN: ".example.com",
        AUTH_DATABASE_URL: "libsql://auth.example.turso.io",
      }),
    (error: Error) => {
      assert.match(error.message, /AUTH_BASE_URL https:\/\/auth\.example\.com is not a loopback address/);
      assert.match(error.message, /AUTH_COOKIE_DOMAIN is set/);
      assert.match(error.message, /AUTH_DATABASE_URL is a remote database/);
      return true;
    },
  );
  for (
    const [env, message] of [
      [{ AUTH_BASE_URL: "http://192.168.1.4:37960" }, /not a loopback address/],
      [
        { AUTH_BASE_URL: "http://localhost:37960", AUTH_COOKIE_DOMAIN: "localhost" },
        /AUTH_COOKIE_DOMAIN is set/,
      ],
      [
        { AUTH_BASE_URL: "http://localhost:37960", AUTH_DATABASE_URL: "https://db.example" },
        /remote database/,
      ],
    ] as const
  ) {
    assert.throws(() => readAuthConfig({ AUTH_LOCAL_MODE: "true", ...env }), message);
  }
  const ok = readAuthConfig({ AUTH_LOCAL_MODE: "true", AUTH_BASE_URL: "http://localhost:37960" });
  assert.equal(ok.AUTH_LOCAL_MODE, true);
  assert.equal(ok.AUTH_SECRET, undefined, "local mode needs no secrets");
});

Deno.test("the committed local.env enables local mode and passes its checks", async () => {
  const text = await Deno.readTextFile(new URL("../../local.env", import.meta.url));
  const env = Object.fromEntries(
    text.split("\n").filter((l) => /^[A-Z_]+=/.test(l)).map((
      l,
    ) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  const config = readAuthConfig(env);
  assert.equal(config.AUTH_LOCAL_MODE, true);
  assert.equal(new URL(config.AUTH_BASE_URL).port, "37960");
  assert.equal(env.AUTH_SECRET, undefined, "no secret is committed");
});

Deno.test("rate limiting is off in local mode", async () => {
  await using svc = await startAuthService();
  const statuses = new Set<number>();
  for (let i = 0; i < 120; i++) {
    const r = await svc.handle(
      new Request(`${svc.url}/api/auth/get-session`, { headers: { "x-forwarded-for": "127.0.0.1" } }),
    );
    statuses.add(r.status);
    await r.body?.cancel();
  }
  assert.deepEqual([...statuses], [200]);
});

Deno.test("the local sign-in page offers the developer button and no GitHub sign-in", async () => {
  await using svc = await startAuthService();
  const html = await (await fetch(`${svc.url}/sign-in`)).text();
  assert.ok(html.includes("Continue as local developer"));
  assert.ok(!/github/i.test(html));
  const github = await fetch(`${svc.url}/sign-in/github`, { method: "POST", headers: { origin: svc.url } });
  assert.equal(github.status, 404);
  await github.body?.cancel();
  const social = await fetch(`${svc.url}/api/auth/sign-in/social`, {
    method: "POST",
    headers: { origin: svc.url, "content-type": "application/json" },
    body: JSON.stringify({ provider: "github" }),
  });
  assert.ok(social.status >= 400, `no social provider locally, got ${social.status}`);
  await social.body?.cancel();
});

Deno.test("the pages' own form posts with Origin null count as same-origin only with Sec-Fetch-Site same-origin", async () => {
  await using svc = await startAuthService();
  const post = (site: string) =>
    fetch(`${svc.url}/sign-in/local-developer`, {
      method: "POST",
      headers: {
        origin: "null",
        "sec-fetch-site": site,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "oauth_query=",
      redirect: "manual",
    });
  const same = await post("same-origin");
  assert.equal(same.status, 303);
  await same.body?.cancel();
  const cross = await post("cross-site");
  assert.equal(cross.status, 403);
  assert.equal((await cross.json()).code, "INVALID_ORIGIN");
});
