/**
 * SHA-256 of a presented API key, as the gateway's key check does once per request: `lib/crypto.ts`
 * (a string through lib/_sha256.ts, restored for issue 28) against Web Crypto and, optionally, other modules exporting a synchronous
 * `sha256Hex(text)` — e.g. the hand-rolled one `lib/crypto.ts` replaced, or `@noble/hashes`:
 * `git show 97a99ea:gateway/keys/sha256.ts > /tmp/sha256.ts; deno task bench:sha256 /tmp/sha256.ts`.
 *
 * Isolated and paired: every sample is a fresh process timing one implementation on one input (warm-up,
 * then batches), and each round runs every implementation back to back in rotating order, so load on a
 * shared machine hits all alike. The figure is the median over rounds of nanoseconds per hash.
 */
import { sha256Hex } from "@switchyard/lib/crypto.ts";

const ROUNDS = 15;
const BATCH = 20_000;
const KEY = `sy_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"}`; // the real shape: 46 ASCII characters
const INPUTS: Record<string, string> = { "46-char key": KEY, "200-char text": "k".repeat(200) };
const LIB = "lib/crypto.ts (_sha256.ts)";
const WEB = "Web Crypto digest (async)";

async function load(name: string): Promise<(text: string) => unknown> {
  if (name === LIB) return sha256Hex;
  if (name === WEB) {
    const encoder = new TextEncoder();
    return (text) => crypto.subtle.digest("SHA-256", encoder.encode(text));
  }
  const module = await import(new URL(name, `file://${Deno.cwd()}/`).href) as {
    sha256Hex: (t: string) => string;
  };
  if (module.sha256Hex(KEY) !== sha256Hex(KEY)) throw new Error(`${name} disagrees with lib/crypto.ts`);
  return module.sha256Hex;
}

/** One sample in this process: ns per hash, the best of three batches after a warm-up batch. */
async function sample(name: string, text: string): Promise<number> {
  const hash = await load(name);
  const batch = name === WEB ? BATCH / 10 : BATCH;
  let best = Infinity;
  for (let run = 0; run < 4; run++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await hash(text);
    if (run > 0) best = Math.min(best, (performance.now() - start) * 1e6 / batch);
  }
  return best;
}

async function child(name: string, label: string): Promise<number> {
  const args = ["run", "--allow-read", new URL(import.meta.url).pathname, "--sample", name, label];
  const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
  if (!out.success) throw new Error(`sample of ${name} failed`);
  return Number(new TextDecoder().decode(out.stdout));
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

if (Deno.args[0] === "--sample") {
  console.log(String(await sample(Deno.args[1], INPUTS[Deno.args[2]])));
} else {
  const names = [LIB, WEB, ...Deno.args];
  for (const label of Object.keys(INPUTS)) {
    const samples = new Map(names.map((name) => [name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length];
        samples.get(name)!.push(await child(name, label));
      }
    }
    console.log(`\n${label}: median over ${ROUNDS} isolated paired rounds, ns per hash (min–max)`);
    for (const name of names) {
      const values = samples.get(name)!;
      const range = `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
      console.log(`  ${name.padEnd(40)} ${median(values).toFixed(0).padStart(7)}  (${range})`);
    }
  }
}
