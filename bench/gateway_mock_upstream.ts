/**
 * Benchmark upstream on Deno.serve, run in a Worker (answers: gateway_mock_answers.ts), so the gateway's own
 * cost is what the bench measures. Plain HTTP only: Deno.serve over TLS leaves Nagle's algorithm on, and a
 * response written in two TLS records then waits ≈ 40 ms for the client's delayed ACK (measured), which no
 * real provider does; the HTTPS lanes use gateway_mock_wire.ts instead.
 */
/// <reference lib="deno.worker" />
import { answerOf, paced } from "./gateway_mock_answers.ts";

self.onmessage = (event: MessageEvent<{ frames: number; gapMs: number }>) => {
  const { frames, gapMs } = event.data;
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => self.postMessage({ url: `http://127.0.0.1:${addr.port}` }),
  }, async (request) => {
    const answer = answerOf(new URL(request.url).pathname, await request.json(), frames);
    const body = answer.frames ? paced(answer.frames, gapMs) : answer.text;
    return new Response(body, { status: answer.status, headers: { "content-type": answer.type } });
  });
};
