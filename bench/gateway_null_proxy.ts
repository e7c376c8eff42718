/**
 * Reference for `bench:gateway`: the thinnest possible Deno proxy (read the body, `fetch` upstream, return
 * the upstream body unchanged, streaming or not). Its added cost is the floor any Deno gateway pays for one
 * more loopback HTTP hop on this machine. Prints `{"url"}` on stdout.
 */
const upstream = Deno.args[0];
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: (addr) => console.log(JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })),
}, async (request) => {
  const response = await fetch(upstream + new URL(request.url).pathname, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-ant-bench",
      authorization: "Bearer sk-bench",
    },
    body: await request.text(),
  });
  return new Response(response.body, { status: response.status, headers: response.headers });
});
