/**
 * Reference for `bench:gateway`: the thinnest possible Deno proxy (read the body, call upstream, return
 * the upstream body unchanged, streaming or not). Its added cost is the floor any Deno gateway pays for one
 * more loopback HTTP hop on this machine. `--client fetch` (default) calls upstream with Deno's fetch;
 * `--client builtin` with the gateway's pooled HTTP/1.1 client (gateway/upstream/http1_client.ts), the
 * floor for the gateway as it is built. Prints `{"url"}` on stdout.
 */
import { createHttp1Client } from "../gateway/upstream/http1_client.ts";

const upstream = Deno.args[0];
const builtin = Deno.args.includes("builtin");
const client = createHttp1Client();
const headers = {
  "content-type": "application/json",
  "x-api-key": "sk-ant-bench",
  authorization: "Bearer sk-bench",
};
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: (addr) => console.log(JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })),
}, async (request) => {
  const url = upstream + new URL(request.url).pathname;
  const body = await request.text();
  if (!builtin) {
    const response = await fetch(url, { method: "POST", headers, body });
    return new Response(response.body, { status: response.status, headers: response.headers });
  }
  const response = await client.fetch(url, { method: "POST", headers, body });
  const type = response.headers.get("content-type") ?? "application/json";
  const out = type.startsWith("text/event-stream") ? response.body : await response.bytes();
  return new Response(out, { status: response.status, headers: { "content-type": type } });
});
