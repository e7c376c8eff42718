/**
 * `deno task bench:compiler` — time to compile the whole gh-aw corpus: a cold process (fresh `deno run`,
 * module loading included), warm in-process runs, and the per-workflow median. Prints a table; skips
 * when the corpus folder is absent. `--gh-aw-version v0.87.4` measures that target on its own corpus (the
 * v0.87 corpus of gh-aw-mcpg, release mode), as `conformance:ghaw` does.
 */
import { compile, type CompileOptions } from "../compiler/mod.ts";

const flag = Deno.args.indexOf("--gh-aw-version");
const ghAwVersion = flag >= 0 ? Deno.args[flag + 1] : undefined;
/** Each target's corpus: folder (beside the project), action mode, schedule seed. */
const CORPORA: Record<string, { dir: string; actionMode: "dev" | "release"; seed?: string }> = {
  "v0.76.1": { dir: "ghaw-corpus", actionMode: "dev" },
  "v0.87.4": { dir: "ghaw-corpus-v0.87", actionMode: "release", seed: "github/gh-aw-mcpg" },
};
const corpus = CORPORA[ghAwVersion ?? "v0.76.1"];
if (!corpus) {
  console.error(
    `bench:compiler: no corpus for --gh-aw-version ${ghAwVersion}; known: ${Object.keys(CORPORA)}`,
  );
  Deno.exit(2);
}
const root = Deno.env.get("GHAW_CORPUS") ??
  new URL(`../../shared/${corpus.dir}`, import.meta.url).pathname;
try {
  await Deno.stat(`${root}/.github/workflows`);
} catch {
  console.log(`bench:compiler: corpus not found at ${root}; skipping`);
  Deno.exit(0);
}
/** The options of every compile of this run. */
const base: CompileOptions = {
  repoRoot: root,
  actionMode: corpus.actionMode,
  scheduleSeed: corpus.seed,
  ghAwVersion,
};

if (Deno.args[0] === "--once") {
  const r = await compile(base);
  console.log(r.workflows.length);
  Deno.exit(0);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Cold: a fresh process per run.
const cold: number[] = [];
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      new URL(import.meta.url).pathname,
      "--once",
      ...(ghAwVersion ? ["--gh-aw-version", ghAwVersion] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("cold run failed");
  cold.push(performance.now() - t);
}

// Warm: in-process, whole corpus.
await compile(base);
const warm: number[] = [];
let count = 0;
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = await compile(base);
  warm.push(performance.now() - t);
  count = r.workflows.length;
}

// Per workflow (warm).
const list = (await compile(base)).workflows.map((w) => w.source);
const per: number[] = [];
for (const wf of list) {
  const t = performance.now();
  await compile({ ...base, workflows: [wf] });
  per.push(performance.now() - t);
}

console.log(
  `\nawc compile — gh-aw corpus ${root} (${count} workflows; target ${ghAwVersion ?? "v0.76.1"})\n`,
);
console.log("| measure | median | min | max |\n|---|---:|---:|---:|");
const row = (n: string, xs: number[]) =>
  console.log(
    `| ${n} | ${median(xs).toFixed(0)} ms | ${Math.min(...xs).toFixed(0)} ms | ${
      Math.max(...xs).toFixed(0)
    } ms |`,
  );
row("whole corpus, cold process (3 runs)", cold);
row("whole corpus, warm in-process (5 runs)", warm);
console.log(
  `| per workflow, warm (${per.length}) | ${median(per).toFixed(1)} ms | ${
    Math.min(...per).toFixed(1)
  } ms | ${Math.max(...per).toFixed(1)} ms |`,
);
