/**
 * `deno task bench:auth`: the auth service (local mode and the deployed configuration, libSQL file) and
 * node-oidc-provider 9.13.3 (in-memory store), side by side in one run, driven by the same client over
 * loopback: discovery, JWKS, userinfo, introspection, code exchange, refresh with rotation (each worker on
 * its own rotation chain), at c=1 (p50/p99) and c=16 (req/s), with the server's CPU µs per request, RSS and
 * cold start to the first 200. Prints one table and ratios against the peer; absolute numbers move between
 * runs on a shared machine, the ratios are the figures. Not part of `deno task test`.
 */
import { parseArgs } from "node:util";
import { RawHttpConnection } from "./raw_http_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "4" },
    requests: { type: "string", default: "300" },
    concurrency: { type: "string", default: "16" },
    only: { type: "string", default: "discovery,jwks,userinfo,introspection,code,refresh" },
    // local, deployed, peer; `local@<dir>`/`deployed@<dir>` start another checkout's service (paired runs).
    targets: { type: "string", default: "local,deployed,peer" },
    // node: the peer under Node.js 22, as node-oidc-provider is deployed; deno: under Deno's npm compat.
    "peer-runtime": { type: "string", default: "node" },
    // fetch: the load generator uses fetch; raw: one keep-alive TCP connection per worker written to and read
    // by bench/raw_http_client.ts, several times cheaper per request (the generator shares the cores).
    client: { type: "string", default: "fetch" },
    // c=N phases in this many slices per target, taken in turn (target A, B, C, A, B, C, …), so that load
    // from other work on a shared machine falls on every target alike; 1: each target's phase in one piece.
    slices: { type: "string", default: "1" },
  },
});
const CLIENT = values.client as "fetch" | "raw";
if (CLIENT !== "fetch" && CLIENT !== "raw") throw new Error("--client is fetch or raw");
const PEER_RUNTIME = values["peer-runtime"] as "node" | "deno";
if (PEER_RUNTIME !== "node" && PEER_RUNTIME !== "deno") throw new Error("--peer-runtime is node or deno");
/** The Node.js release the peer runs on (npm's per-platform `node-<os>-<arch>` package ships the binary). */
const PEER_NODE_VERSION = "22.23.3";
const SECONDS = Number(values.seconds);
const SLICES = Math.max(1, Math.floor(Number(values.slices)));
if (!Number.isFinite(SLICES)) throw new Error("--slices is a whole number");
const C1_REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const ONLY = new Set(values.only.split(","));
const TARGETS = values.targets.split(",");
// Codes for the code-exchange scenario (a few spare otherwise: minting them is most of the start-up time).
const CODES = ONLY.has("code") ? C1_REQUESTS + 4000 : 20;

interface Started {
  child: Deno.ChildProcess;
  info: Record<string, unknown>;
  coldStartMs: number;
}

/**
 * A Node.js 22 binary: `AUTH_BENCH_NODE`, else npm's `node-<os>-<arch>@22` package installed once into
 * `.data/bench-node/` (a real binary, no system install, no install script).
 */
async function nodeBinary(): Promise<string> {
  const given = Deno.env.get("AUTH_BENCH_NODE");
  if (given) return given;
  const os = Deno.build.os === "darwin" ? "darwin" : "linux";
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  const pkg = `node-${os}-${arch}`;
  const prefix = new URL("../.data/bench-node/", import.meta.url).pathname;
  const binary = `${prefix}node_modules/${pkg}/bin/node`;
  const version = async () => {
    try {
      const out = await new Deno.Command(binary, { args: ["--version"], stdout: "piped" }).output();
      return new TextDecoder().decode(out.stdout).trim();
    } catch {
      return undefined;
    }
  };
  if (await version() !== `v${PEER_NODE_VERSION}`) {
    console.error(`installing ${pkg}@${PEER_NODE_VERSION} from npm into ${prefix} (once)`);
    await Deno.mkdir(prefix, { recursive: true });
    const install = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--prefix",
        prefix,
        `${pkg}@${PEER_NODE_VERSION}`,
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!install.success || await version() !== `v${PEER_NODE_VERSION}`) {
      throw new Error(
        `could not install ${pkg}@${PEER_NODE_VERSION}; set AUTH_BENCH_NODE or use --peer-runtime deno`,
      );
    }
  }
  return binary;
}

/** Spawns a server script and reads its first stdout line (JSON); measures spawn → first discovery 200. */
async function spawn(
  script: string,
  args: string[],
  discoveryPath: string,
  runtime: "deno" | "node" = "deno",
): Promise<Started> {
  const path = script.startsWith("/") ? script : new URL(script, import.meta.url).pathname;
  const command = runtime === "node"
    ? { exec: await nodeBinary(), args: ["--experimental-strip-types", "--no-warnings", path, ...args] }
    : undefined;
  const started = performance.now();
  // AUTH_BENCH_CPU_PROF=<dir> profiles the service's processes (written when the bench stops them).
  const profileDir = Deno.env.get("AUTH_BENCH_CPU_PROF");
  const profile = profileDir && script.includes("auth_bench_server")
    ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
    : [];
  const child = new Deno.Command(command?.exec ?? Deno.execPath(), {
    args: command?.args ?? ["run", "-A", ...profile, path, ...args],
    stdout: "piped",
    stderr: "inherit",
    // A script of another checkout (`deployed@<dir>`) runs with that checkout's deno.json.
    cwd: path.replace(/\/bench\/[^/]+$/, ""),
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before it was ready`);
    text += value;
  }
  reader.releaseLock();
  const info = JSON.parse(text.slice(0, text.indexOf("\n")));
  // Cold start: from spawning to the first 200 (setup work of the script included for both alike).
  const response = await fetch(`${info.url}${discoveryPath}`);
  await response.body?.cancel();
  return { child, info, coldStartMs: performance.now() - started };
}

/** CPU time (user + system) of a process in microseconds, from /proc. */
async function cpuMicros(pid: number): Promise<number> {
  const stat = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
  const ticks = Number(stat[11]) + Number(stat[12]);
  return ticks * 10_000; // USER_HZ is 100 on Linux
}

/** Write system calls (`syscw`) and bytes handed to them (`wchar`) by a process so far, from /proc. */
async function writesOf(pid: number): Promise<{ calls: number; bytes: number }> {
  const io = await Deno.readTextFile(`/proc/${pid}/io`);
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? 0);
  return { calls: field("syscw"), bytes: field("wchar") };
}

/** Resident set size in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** A request factory per target: `next()` builds one request (and may consume a code or rotate a chain). */
type Step = () => Promise<Response>;

interface Target {
  name: string;
  started: Started;
  paths: { discovery: string; jwks: string; token: string; userinfo: string; introspection: string };
  basic: string;
  headers: () => Record<string, string>;
  codes: { code: string; verifier: string }[];
  accessTokens: string[];
  refreshTokens: string[];
}

const basicOf = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

async function b64urlSha256(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Starts the service and gets codes and token chains through its own endpoints. */
async function startService(mode: "local" | "deployed", checkout?: string): Promise<Target> {
  const started = await spawn(
    checkout ? `${checkout.replace(/\/$/, "")}/bench/auth_bench_server.ts` : "./auth_bench_server.ts",
    mode === "deployed" ? ["deployed"] : [],
    "/api/auth/.well-known/openid-configuration",
  );
  const info = started.info as Record<string, string>;
  // Deployed: the edge's client header, a fresh value per request, so the bench measures the limiter's work
  // without being limited by it.
  const headers = (): Record<string, string> =>
    mode === "deployed" ? { "x-bench-client": crypto.randomUUID() } : {};
  const basic = basicOf(info.client_id, info.client_secret);
  const codes: { code: string; verifier: string }[] = [];
  const verifier = "bench-verifier-bench-verifier-bench-verifier-0123456789";
  const challenge = await b64urlSha256(verifier);
  const origin = mode === "deployed" ? "https://auth.bench.test" : info.url;
  for (let i = 0; i < CODES + CONCURRENCY * 2; i++) {
    const url = new URL(`${info.url}/api/auth/oauth2/authorize`);
    url.search = new URLSearchParams({
      client_id: info.client_id,
      redirect_uri: info.redirect_uri,
      response_type: "code",
      scope: "openid profile email offline_access",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: String(i),
    }).toString();
    const response = await fetch(url, {
      headers: { cookie: info.cookie, origin, ...headers() },
      redirect: "manual",
    });
    await response.body?.cancel();
    const code = new URL(response.headers.get("location") ?? "http://x/").searchParams.get("code");
    if (!code) {
      throw new Error(
        `${mode}: authorize gave no code (${response.status} ${response.headers.get("location")})`,
      );
    }
    codes.push({ code, verifier });
  }
  // Token chains for userinfo, introspection and refresh, from codes set aside.
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  for (let i = 0; i < CONCURRENCY * 2; i++) {
    const { code } = codes.pop()!;
    const response = await fetch(`${info.url}/api/auth/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic, ...headers() },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: info.redirect_uri,
      }),
    });
    const tokens = await response.json();
    if (!tokens.refresh_token) throw new Error(`${mode}: no refresh token: ${JSON.stringify(tokens)}`);
    accessTokens.push(tokens.access_token);
    refreshTokens.push(tokens.refresh_token);
  }
  return {
    name: `switchyard (${mode}${checkout ? ` @${checkout}` : ""})`,
    started,
    paths: {
      discovery: "/api/auth/.well-known/openid-configuration",
      jwks: "/api/auth/jwks",
      token: "/api/auth/oauth2/token",
      userinfo: "/api/auth/oauth2/userinfo",
      introspection: "/api/auth/oauth2/introspect",
    },
    basic,
    headers,
    codes,
    accessTokens,
    refreshTokens,
  };
}

async function startPeer(): Promise<Target> {
  const started = await spawn(
    "./oidc_provider_server.ts",
    [String(CODES + CONCURRENCY * 2)],
    "/.well-known/openid-configuration",
    PEER_RUNTIME,
  );
  const info = started.info as {
    url: string;
    client_id: string;
    client_secret: string;
    verifier: string;
    grants: { code: string; refresh_token: string; access_token: string }[];
  };
  return {
    name: `node-oidc-provider 9.13.3 (${PEER_RUNTIME === "node" ? `Node ${PEER_NODE_VERSION}` : "Deno"})`,
    started,
    paths: {
      discovery: "/.well-known/openid-configuration",
      jwks: "/jwks",
      token: "/token",
      userinfo: "/me",
      introspection: "/token/introspection",
    },
    basic: basicOf(info.client_id, info.client_secret),
    headers: () => ({}),
    codes: info.grants.slice(CONCURRENCY * 2).map((g) => ({ code: g.code, verifier: info.verifier })),
    accessTokens: info.grants.slice(0, CONCURRENCY * 2).map((g) => g.access_token),
    refreshTokens: info.grants.slice(0, CONCURRENCY * 2).map((g) => g.refresh_token),
  };
}

/** One raw connection per target and worker (`--client raw`), opened on first use. */
const rawConnections = new Map<string, Promise<RawHttpConnection>>();

/** `fetch` for the bench's requests, or the same request over the worker's raw connection. */
function sender(t: Target, worker: number): (url: string, init?: RequestInit) => Promise<Response> {
  if (CLIENT === "fetch") return (url, init) => fetch(url, init);
  return async (url, init = {}) => {
    const key = `${t.name}:${worker}`;
    let connection = rawConnections.get(key);
    if (!connection) {
      connection = RawHttpConnection.open(url);
      rawConnections.set(key, connection);
    }
    const { pathname, search } = new URL(url);
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    const headers = body !== undefined && init.body instanceof URLSearchParams
      ? { "content-type": "application/x-www-form-urlencoded", ...init.headers as Record<string, string> }
      : init.headers as Record<string, string> | undefined;
    try {
      return await (await connection).request(init.method ?? "GET", pathname + search, headers, body);
    } catch (error) {
      // A keep-alive connection the server closed while idle (Node's 5 s keepAliveTimeout between phases):
      // one new connection, the request sent again.
      if (!(error instanceof Error && error.message.includes("closed"))) throw error;
      (await connection).close();
      const fresh = RawHttpConnection.open(url);
      rawConnections.set(key, fresh);
      return await (await fresh).request(init.method ?? "GET", pathname + search, headers, body);
    }
  };
}

/** The request a scenario sends for worker `w` of target `t`. */
function scenarioStep(t: Target, scenario: string, worker: number): Step {
  const url = (path: string) => `${t.started.info.url}${path}`;
  const fetch = sender(t, worker);
  const form = (body: Record<string, string>, extra: Record<string, string> = {}) =>
    fetch(url(t.paths.token), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: t.basic,
        ...t.headers(),
        ...extra,
      },
      body: new URLSearchParams(body),
    });
  switch (scenario) {
    case "discovery":
      return () => fetch(url(t.paths.discovery), { headers: t.headers() });
    case "jwks":
      return () => fetch(url(t.paths.jwks), { headers: t.headers() });
    case "userinfo":
      return () =>
        fetch(url(t.paths.userinfo), {
          headers: { authorization: `Bearer ${t.accessTokens[worker]}`, ...t.headers() },
        });
    case "introspection":
      return () =>
        fetch(url(t.paths.introspection), {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: t.basic,
            ...t.headers(),
          },
          body: new URLSearchParams({ token: t.accessTokens[worker] }),
        });
    case "code":
      return () => {
        const next = t.codes.pop();
        if (!next) throw new Error("out of codes");
        return form({
          grant_type: "authorization_code",
          code: next.code,
          code_verifier: next.verifier,
          redirect_uri: "http://127.0.0.1:9/cb",
        });
      };
    case "refresh":
      return async () => {
        const response = await form({ grant_type: "refresh_token", refresh_token: t.refreshTokens[worker] });
        const body = await response.clone().json().catch(() => ({}));
        if (body.refresh_token) t.refreshTokens[worker] = body.refresh_token;
        return response;
      };
  }
  throw new Error(`unknown scenario ${scenario}`);
}

async function expectOk(response: Response, label: string): Promise<void> {
  if (response.status !== 200) {
    throw new Error(`${label}: ${response.status} ${(await response.text()).slice(0, 200)}`);
  }
  await response.body?.cancel();
}

/** c=1: sequential requests, p50/p99 in ms. */
async function latency(t: Target, scenario: string): Promise<{ p50: number; p99: number }> {
  const step = scenarioStep(t, scenario, 0);
  for (let i = 0; i < 10; i++) await expectOk(await step(), `${t.name} ${scenario}`);
  const times: number[] = [];
  const n = scenario === "code" ? Math.min(C1_REQUESTS, 200) : C1_REQUESTS;
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await expectOk(await step(), `${t.name} ${scenario}`);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** What one c=N slice measured on one target (sums, combined by {@link throughputOf}). */
interface Slice {
  done: number;
  seconds: number;
  cpuUs: number;
  writeCalls: number;
  writeBytes: number;
}

/** c=N for `seconds`: requests done, and the server's CPU and writes meanwhile. */
async function throughputSlice(t: Target, scenario: string, seconds: number): Promise<Slice> {
  const pid = t.started.child.pid;
  const writesBefore = await writesOf(pid);
  const cpuBefore = await cpuMicros(pid);
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    const step = scenarioStep(t, scenario, w);
    while (performance.now() < deadline) {
      if (scenario === "code" && t.codes.length === 0) break;
      await expectOk(await step(), `${t.name} ${scenario}`);
      done++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = (await cpuMicros(pid)) - cpuBefore;
  const writes = await writesOf(pid);
  return {
    done,
    seconds: elapsed,
    cpuUs: cpu,
    writeCalls: writes.calls - writesBefore.calls,
    writeBytes: writes.bytes - writesBefore.bytes,
  };
}

/** Requests per second, server CPU µs per request and writes per request over a target's slices. */
function throughputOf(slices: Slice[]): { rps: number; cpuUs: number; writeCalls: number; writeKB: number } {
  const sum = (key: keyof Slice) => slices.reduce((total, slice) => total + slice[key], 0);
  const n = Math.max(1, sum("done"));
  return {
    rps: sum("done") / sum("seconds"),
    cpuUs: sum("cpuUs") / n,
    // write/pwrite/writev calls (log frames, checkpoints; sockets when written with write, not sendto).
    writeCalls: sum("writeCalls") / n,
    writeKB: sum("writeBytes") / n / 1024,
  };
}

const targets: Target[] = [];
for (const name of TARGETS) {
  if (name === "peer") targets.push(await startPeer());
  else {
    // `deployed@<dir>`: the service of another checkout (a paired run against a base commit).
    const [mode, checkout] = name.split("@");
    if (mode !== "local" && mode !== "deployed") throw new Error(`unknown target ${name}`);
    targets.push(await startService(mode, checkout));
  }
}
const rows: string[][] = [];
const results = new Map<
  string,
  Map<string, { p50: number; p99: number; rps: number; cpuUs: number; writeCalls: number; writeKB: number }>
>();
for (const scenario of ["discovery", "jwks", "userinfo", "introspection", "code", "refresh"]) {
  if (!ONLY.has(scenario)) continue;
  const c1 = new Map<Target, { p50: number; p99: number }>();
  for (const t of targets) c1.set(t, await latency(t, scenario));
  // With --slices, the targets take turns so that they share the machine's other load alike.
  const slices = new Map<Target, Slice[]>(targets.map((t) => [t, []]));
  for (let i = 0; i < SLICES; i++) {
    for (const t of targets) slices.get(t)!.push(await throughputSlice(t, scenario, SECONDS / SLICES));
  }
  if (!results.has(scenario)) results.set(scenario, new Map());
  for (const t of targets) {
    results.get(scenario)!.set(t.name, { ...c1.get(t)!, ...throughputOf(slices.get(t)!) });
  }
}
const peer = targets.find((t) => t.name.startsWith("node-oidc"))?.name;
const header = [
  "scenario",
  "server",
  "c=1 p50 ms",
  "c=1 p99 ms",
  `c=${CONCURRENCY} req/s`,
  "CPU µs/req",
  "writes/req (KB)",
  "× peer req/s",
];
console.log(`load generator: ${CLIENT === "raw" ? "raw keep-alive connections" : "fetch"}, c=${CONCURRENCY}`);
rows.push(header);
for (const [scenario, byTarget] of results) {
  const peerRps = peer ? byTarget.get(peer)?.rps : undefined;
  for (const [name, r] of byTarget) {
    rows.push([
      scenario,
      name,
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      r.rps.toFixed(0),
      r.cpuUs.toFixed(0),
      `${r.writeCalls.toFixed(1)} (${r.writeKB.toFixed(1)})`,
      peerRps && name !== peer ? (r.rps / peerRps).toFixed(2) : "",
    ]);
  }
}
for (const t of targets) {
  rows.push([
    "process",
    t.name,
    "",
    "",
    "",
    "",
    "",
    `RSS ${(await rssMiB(t.started.child.pid)).toFixed(0)} MiB, cold start ${
      t.started.coldStartMs.toFixed(0)
    } ms`,
  ]);
}
const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
for (const row of rows) console.log(row.map((cell, i) => (cell ?? "").padEnd(widths[i])).join("  "));
for (const connection of rawConnections.values()) (await connection).close();
// SIGTERM: the service script exits through Deno.exit, so a requested CPU profile is written.
for (const t of targets) t.started.child.kill("SIGTERM");
await Promise.all(targets.map((t) => t.started.child.status));
