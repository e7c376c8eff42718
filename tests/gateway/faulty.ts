/**
 * Faulty loopback upstreams and a gateway in front of them with its log lines captured: the stand-ins for
 * production failures (hung, slow, huge, key-quoting, 503, cut mid-stream). Each upstream is a real HTTP
 * server; it records every request, when the gateway hung up on it, and checks the credential it expects.
 */
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { startServer } from "@switchyard/lib/serve.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { readGatewayConfig } from "../../gateway/config/mod.ts";
import { startGatewayServer } from "../../gateway/serve.ts";
import { ApiKeyStore, type KeysDatabase } from "../../gateway/keys/store.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import type { UpstreamFetch } from "../../gateway/upstream/response.ts";

/** One request a faulty upstream received. */
export interface FaultyRequest {
  /** Path and query. */
  path: string;
  /** Parsed JSON body. */
  body: Record<string, unknown>;
  /** Request headers. */
  headers: Headers;
  /** `performance.now()` when it arrived. */
  at: number;
  /** `performance.now()` when the gateway hung up before the answer ended, if it did. */
  abortedAt?: number;
}

/** A running faulty upstream. */
export interface FaultyUpstream {
  /** Base URL. */
  url: string;
  /** Every request, in order. */
  requests: FaultyRequest[];
  /** Stops it. */
  close(): Promise<void>;
}

/** Starts an upstream answering with `handle`; `signal` aborts when the gateway hangs up. */
export async function startFaultyUpstream(
  handle: (request: FaultyRequest, signal: AbortSignal) => Response | Promise<Response>,
): Promise<FaultyUpstream> {
  const requests: FaultyRequest[] = [];
  const server = await startServer(async (request) => {
    const text = await request.text();
    const recorded: FaultyRequest = {
      path: new URL(request.url).pathname + new URL(request.url).search,
      body: text ? JSON.parse(text) : {},
      headers: request.headers,
      at: performance.now(),
    };
    requests.push(recorded);
    request.signal.addEventListener("abort", () => recorded.abortedAt ??= performance.now());
    try {
      return await handle(recorded, request.signal);
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 }); // nobody is listening
      throw error;
    }
  }, { port: 0 });
  return { url: server.url, requests, close: () => server.shutdown() };
}

/** Resolves after `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** A gateway in front of faulty upstreams, with its log lines. */
export interface FaultyGateway {
  /** Base URL. */
  url: string;
  /** A valid key. */
  key: string;
  /** The key store (to create keys with settings; the verifier sees a new key within a second). */
  store: ApiKeyStore;
  /** Every log line written (JSON text), in order. */
  logs: string[];
  /** POSTs a messages body. */
  post(body: unknown, init?: RequestInit): Promise<Response>;
  /** Stops it. */
  close(): Promise<void>;
}

/**
 * Starts a gateway with `env` (upstream URLs and keys, limits), an optional config file and an optional
 * upstream fetch in place of the one GATEWAY_UPSTREAM_CLIENT selects.
 */
export async function startFaultyGateway(
  env: Record<string, string>,
  configYaml?: string,
  upstreamFetch?: UpstreamFetch,
): Promise<FaultyGateway> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-faulty-" });
  if (configYaml !== undefined) await Deno.writeTextFile(`${dir}/gateway.yaml`, configYaml);
  const config = readGatewayConfig({
    GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
    GATEWAY_PING_INTERVAL_MS: "40",
    ...(configYaml !== undefined ? { GATEWAY_CONFIG: `${dir}/gateway.yaml` } : {}),
    ...env,
  });
  const { client, db } = await openDatabase<KeysDatabase>({ url: config.GATEWAY_DATABASE_URL });
  await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
  const store = new ApiKeyStore(db);
  const { key } = await store.create("faulty");
  const keys = new KeyVerifier(() => store.activeHashes(), { ttlMs: 1_000 });
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  const app = createGatewayApp(config, { logger, keys, fetch: upstreamFetch });
  // As self-hosted: behind the connection guard unless GATEWAY_CONNECTION_GUARD=off.
  const server = await startGatewayServer(app.fetch, config, { port: 0 });
  return {
    url: server.url,
    key,
    store,
    logs,
    post: (body, init = {}) =>
      fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify(body),
        ...init,
      }),
    async close() {
      await server.shutdown();
      await app.close();
      client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** A lazily generated body of `total` bytes of `fill`, counting what was actually pulled by the server. */
export function lazyBody(
  total: number,
  fill: string,
  counter: { sent: number },
  contentType = "application/json",
  headers: Record<string, string> = {},
): Response {
  const piece = new TextEncoder().encode(fill.repeat(Math.ceil(65_536 / fill.length)).slice(0, 65_536));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.sent >= total) return controller.close();
      const chunk = piece.subarray(0, Math.min(piece.length, total - counter.sent));
      counter.sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { headers: { "content-type": contentType, ...headers } });
}

/** The SSE events of a stream body, as `{event, data}` pairs. */
export function eventsOf(text: string): Array<{ event: string; data: string }> {
  return text.split("\n\n").filter((frame) => frame.trim()).map((frame) => ({
    event: /^event: (.*)$/m.exec(frame)?.[1] ?? "message",
    data: /^data: (.*)$/m.exec(frame)?.[1] ?? "",
  }));
}
