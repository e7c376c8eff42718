/**
 * Decoding Bedrock's stream framing (`application/vnd.amazon.eventstream`) per message, as the Bedrock stream
 * path does for every chunk: `gateway/providers/aws_event_stream.ts` against, optionally, other modules
 * exporting `createEventStreamDecoder` — e.g. the own codec it replaced:
 * `git show cd6dce5:gateway/providers/aws_event_stream.ts > gateway/providers/_old_es.ts;
 * deno task bench:event-stream gateway/providers/_old_es.ts` (the copy must sit where its imports resolve).
 *
 * Isolated and paired like bench/sha256_bench.ts: each sample a fresh process (warm-up, best of three
 * batches), rounds in rotating order, the median over rounds in nanoseconds per message.
 */
import { eventMessage } from "../tests/gateway/upstreams/event_stream_body.ts";
import { createEventStreamDecoder } from "../gateway/providers/aws_event_stream.ts";

type Factory = typeof createEventStreamDecoder;

const ROUNDS = 21;
const REPS = 100;
const CURRENT = "gateway/providers/aws_event_stream.ts";
// An InvokeModelWithResponseStream chunk: JSON {bytes: base64(an Anthropic stream event)}, ~280 bytes.
const delta = {
  type: "content_block_delta",
  index: 0,
  delta: { type: "text_delta", text: "Hello there, a token." },
};
const frames = Array.from(
  { length: 64 },
  (_, i) => eventMessage("chunk", { bytes: btoa(JSON.stringify(delta)), p: "x".repeat(i % 40) }),
);

async function load(name: string): Promise<Factory> {
  if (name === CURRENT) return createEventStreamDecoder;
  return (await import(new URL(name, `file://${Deno.cwd()}/`).href) as { createEventStreamDecoder: Factory })
    .createEventStreamDecoder;
}

async function sample(name: string): Promise<number> {
  const create = await load(name);
  let bytes = 0;
  const decoder = create((m) => bytes += m.payload.length, (reason) => {
    throw new Error(reason);
  });
  let best = Infinity;
  for (let run = 0; run < 4; run++) {
    const start = performance.now();
    for (let r = 0; r < REPS; r++) for (const frame of frames) decoder.feed(frame);
    if (run > 0) best = Math.min(best, (performance.now() - start) * 1e6 / (REPS * frames.length));
  }
  if (bytes === 0) throw new Error("nothing decoded");
  return best;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

if (Deno.args[0] === "--sample") {
  console.log(String(await sample(Deno.args[1])));
} else {
  const names = [CURRENT, ...Deno.args];
  const samples = new Map(names.map((name) => [name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      const args = ["run", "--allow-read", new URL(import.meta.url).pathname, "--sample", name];
      const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
      if (!out.success) throw new Error(`sample of ${name} failed`);
      samples.get(name)!.push(Number(new TextDecoder().decode(out.stdout)));
    }
  }
  console.log(
    `event-stream decode, ${
      frames[0].length
    }-byte Bedrock chunks: median over ${ROUNDS} rounds, ns per message`,
  );
  for (const name of names) {
    const values = samples.get(name)!;
    const range = `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
    console.log(`  ${name.padEnd(44)} ${median(values).toFixed(0).padStart(6)}  (${range})`);
  }
}
