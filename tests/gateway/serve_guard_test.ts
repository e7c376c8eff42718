/**
 * The edge entry under `deno serve`: with GATEWAY_SERVE_GUARD the connection guard accepts on its public
 * address in front of the port `deno serve` listens on, so slowloris and idle clients are disconnected there
 * too; the `deno serve` port itself answers 421 to anything that did not come through the guard. Without it,
 * the process warns that its sockets are unbounded.
 */
import assert from "node:assert/strict";
import { spawnGateway } from "./gateway_process.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Resolves with the milliseconds until the server closed `conn` (or `limitMs` if it never did). */
async function closedAfter(conn: Deno.Conn, limitMs: number): Promise<number> {
  const started = performance.now();
  const buffer = new Uint8Array(1024);
  const deadline = setTimeout(() => conn.close(), limitMs);
  try {
    while ((await conn.read(buffer)) !== null);
  } catch {
    // closed by our own deadline
  } finally {
    clearTimeout(deadline);
  }
  try {
    conn.close();
  } catch {
    // already closed
  }
  return performance.now() - started;
}

Deno.test(
  "under deno serve with GATEWAY_SERVE_GUARD slowloris and idle clients are disconnected",
  e2e,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "serve-guard-" });
    const publicPort = freePort();
    const gw = await spawnGateway({
      GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
      GATEWAY_SERVE_GUARD: `127.0.0.1:${publicPort}`,
      GATEWAY_CLIENT_HEADER_TIMEOUT_MS: "300",
      GATEWAY_CLIENT_IDLE_TIMEOUT_MS: "500",
    });
    try {
      assert.equal(gw.url, `http://127.0.0.1:${publicPort}`, gw.lines.join("\n"));
      const health = await fetch(`${gw.url}/api/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      // 200 slowloris connections: a partial head, then a byte now and then; all are closed by the guard.
      const slow = await Promise.all(
        Array.from({ length: 200 }, () => Deno.connect({ hostname: "127.0.0.1", port: publicPort })),
      );
      const encoder = new TextEncoder();
      await Promise.all(
        slow.map((c) => c.write(encoder.encode("POST /v1/messages HTTP/1.1\r\nHost: x\r\n"))),
      );
      const trickle = setInterval(() => {
        for (const c of slow) c.write(encoder.encode("x")).catch(() => {});
      }, 100);
      const times = await Promise.all(slow.map((c) => closedAfter(c, 5_000)));
      clearInterval(trickle);
      assert.ok(Math.max(...times) < 2_000, `slowest close after ${Math.round(Math.max(...times))} ms`);
      // An idle keep-alive connection after its answer is closed by the idle timeout.
      const idle = await Deno.connect({ hostname: "127.0.0.1", port: publicPort });
      await idle.write(encoder.encode("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"));
      const idleFor = await closedAfter(idle, 5_000);
      assert.ok(idleFor >= 400 && idleFor < 2_000, `idle connection closed after ${Math.round(idleFor)} ms`);
      // The port deno serve itself listens on refuses requests that did not come through the guard.
      const internal = /connection guard in front of (http:\/\/127\.0\.0\.1:\d+)/.exec(gw.lines.join("\n"));
      assert.ok(internal, gw.lines.join("\n"));
      const direct = await fetch(`${internal[1]}/api/health`);
      assert.equal(direct.status, 421);
      await direct.body?.cancel();
    } finally {
      await gw.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "under deno serve without GATEWAY_SERVE_GUARD the gateway warns that its sockets are unbounded",
  e2e,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "serve-guard-" });
    const gw = await spawnGateway({ GATEWAY_DATABASE_URL: `file:${dir}/gateway.db` });
    try {
      assert.ok(
        gw.lines.some((l) => l.startsWith("warning: no connection guard under deno serve")),
        gw.lines.join("\n"),
      );
    } finally {
      await gw.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
