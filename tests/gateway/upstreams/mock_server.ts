/** The common part of the mock upstream servers: a loopback server that records what it received. */
import { startServer } from "@switchyard/lib/serve.ts";

/** One request a mock received. */
export interface RecordedRequest {
  /** Path and query. */
  path: string;
  /** Request headers (lower-case names). */
  headers: Record<string, string>;
  /** Parsed JSON body. */
  body: Record<string, unknown>;
  /** The body text exactly as received. */
  raw: string;
  /** The client's (the gateway's) source port: equal ports mean a reused connection. */
  remotePort: number;
}

/** A running mock upstream. */
export interface MockUpstream {
  /** Base URL. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Streams the client (the gateway) cancelled before they ended. */
  cancelled: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Starts a mock whose `handle` answers each recorded request. */
export async function startMock(
  handle: (request: RecordedRequest, mock: MockUpstream) => Response | Promise<Response>,
): Promise<MockUpstream> {
  const mock: MockUpstream = {
    url: "",
    requests: [],
    cancelled: 0,
    close: () => Promise.resolve(),
  };
  const server = await startServer(async (request, info) => {
    const url = new URL(request.url);
    const text = request.method === "GET" ? "" : await request.text();
    const recorded: RecordedRequest = {
      path: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      body: text ? JSON.parse(text) : {},
      raw: text,
      remotePort: info.remoteAddr.port,
    };
    mock.requests.push(recorded);
    return await handle(recorded, mock);
  }, { port: 0 });
  mock.url = server.url;
  mock.close = () => server.shutdown();
  return mock;
}

/**
 * A fixture table entry: a fixed generation, or a scripted one decided from the request (the scripted agent
 * of the Claude Code lanes answers a tool call or the final text depending on the conversation).
 */
export type FixtureEntry<F> = F | ((request: RecordedRequest) => F);

/** The fixture for `model`, running a scripted entry on `request`. */
export function fixtureFor<F>(
  fixtures: Record<string, FixtureEntry<F>>,
  model: string,
  request: RecordedRequest,
): F | undefined {
  const entry = fixtures[model];
  return typeof entry === "function" ? (entry as (request: RecordedRequest) => F)(request) : entry;
}

/** A JSON response. */
export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An SSE response. */
export function sse(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** A JSON response whose connection is cut halfway through the body. */
export function cutJson(value: unknown): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, Math.floor(bytes.length / 2)));
      setTimeout(() => controller.error(new Error("connection cut by the fixture")), 5);
    },
  });
  return new Response(body, { headers: { "content-type": "application/json" } });
}
