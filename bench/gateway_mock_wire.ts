/**
 * The bench mock for the HTTPS lanes, run in a Worker: the answers of gateway_mock_answers.ts over a small
 * HTTP/1.1 server on node:net, or node:tls when `tls` ({cert, key} PEM) is given, the same code either way so
 * the HTTP and HTTPS lanes differ by TLS alone. Why not Deno.serve: over TLS it leaves Nagle's algorithm on
 * (see gateway_mock_upstream.ts); here every socket has TCP_NODELAY, as real providers' front ends do, and a
 * whole answer, or one SSE frame, leaves in one write. Keep-alive; request bodies must carry content-length
 * (both of the gateway's clients and the bench's fetch send one).
 */
/// <reference lib="deno.worker" />
import net from "node:net";
import tls from "node:tls";
import type { Buffer } from "node:buffer";
import { answerOf, stamped } from "./gateway_mock_answers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chunk = (text: string) => `${new TextEncoder().encode(text).length.toString(16)}\r\n${text}\r\n`;

async function respond(socket: net.Socket, path: string, body: string, frames: number, gapMs: number) {
  const answer = answerOf(path, JSON.parse(body), frames);
  const head = `HTTP/1.1 ${answer.status} ${answer.status === 200 ? "OK" : "Service Unavailable"}\r\n` +
    `content-type: ${answer.type}\r\n`;
  if (answer.text !== undefined) {
    const length = new TextEncoder().encode(answer.text).length;
    socket.write(`${head}content-length: ${length}\r\n\r\n${answer.text}`);
    return;
  }
  const list = answer.frames!;
  let out = `${head}transfer-encoding: chunked\r\n\r\n`;
  for (let i = 0; i < list.length; i++) {
    if (i > 0) await sleep(gapMs);
    if (socket.destroyed) return;
    out += chunk(stamped(list[i]));
    if (i === list.length - 1) out += "0\r\n\r\n";
    socket.write(out);
    out = "";
  }
}

function serveConnection(socket: net.Socket, frames: number, gapMs: number) {
  socket.setNoDelay(true);
  let pending = "";
  let queue = Promise.resolve();
  socket.on("error", () => socket.destroy());
  socket.on("data", (data: Buffer) => {
    pending += data.toString("latin1"); // one char per byte, so content-length counts in string length
    for (;;) {
      const end = pending.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = pending.slice(0, end);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < end + 4 + length) return;
      const path = head.split(" ")[1] ?? "/";
      const body = new TextDecoder().decode(
        Uint8Array.from(pending.slice(end + 4, end + 4 + length), (c) => c.charCodeAt(0)),
      );
      pending = pending.slice(end + 4 + length);
      queue = queue.then(() => respond(socket, path, body, frames, gapMs)).catch(() => {
        socket.destroy();
      });
    }
  });
}

self.onmessage = (
  event: MessageEvent<{ frames: number; gapMs: number; tls?: { cert: string; key: string } }>,
) => {
  const { frames, gapMs } = event.data;
  const onConnection = (socket: net.Socket) => serveConnection(socket, frames, gapMs);
  const server = event.data.tls
    ? tls.createServer({ ...event.data.tls, ALPNProtocols: ["http/1.1"] }, onConnection)
    : net.createServer(onConnection);
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo;
    self.postMessage({ url: `${event.data.tls ? "https" : "http"}://127.0.0.1:${port}` });
  });
};
