/**
 * `deno task compiler:identical [REV]` — proves a change of the compiler leaves its output byte-identical.
 * Compiles the gh-aw corpus, every snapshot of the real-world corpus and our fixtures (dev and release mode)
 * with the work tree's compiler and with the compiler of git revision REV (default `HEAD`), then compares
 * every lock, the diagnostics and the actions lock byte for byte. REV's output is cached under
 * `$AWC_IDENTICAL_CACHE` (default `/tmp/awc-identical`), keyed by commit and by this checker's own text.
 * Exits 1 and prints the first differences when anything differs. Corpora that are absent are skipped.
 */
import { posix } from "node:path";

const here = new URL(".", import.meta.url).pathname;
const projectRoot = posix.resolve(here, "../..");
const shared = Deno.env.get("SHARED_CORPORA") ?? posix.resolve(projectRoot, "../shared");
const rev = Deno.args[0] ?? "HEAD";
const cacheRoot = Deno.env.get("AWC_IDENTICAL_CACHE") ?? "/tmp/awc-identical";

async function run(cmd: string, args: string[], cwd = projectRoot): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${text}${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every corpus as `name=root=seed`: a repository root holding `.github/workflows`. */
async function corpora(): Promise<string[]> {
  const out: string[] = [];
  const ghaw = `${shared}/ghaw-corpus`;
  if (await exists(`${ghaw}/.github/workflows`)) out.push(`ghaw=${ghaw}=github/gh-aw`);
  const realworld = `${shared}/realworld-corpus`;
  if (await exists(realworld)) {
    const owners = [...Deno.readDirSync(realworld)].filter((e) => e.isDirectory).map((e) => e.name).sort();
    for (const owner of owners) {
      const snapshots = [...Deno.readDirSync(`${realworld}/${owner}`)].filter((e) => e.isDirectory)
        .map((e) => e.name).sort();
      for (const snapshot of snapshots) {
        const root = `${realworld}/${owner}/${snapshot}`;
        if (!await exists(`${root}/.github/workflows`)) continue;
        out.push(`realworld-${snapshot}=${root}=${owner.replace("__", "/")}`);
      }
    }
  }
  out.push(`fixtures=${projectRoot}/tests/compiler/testdata/repo=acme/widgets`);
  return out;
}

/** Runs the emitter that sits in `treeRoot` (a checkout) into `outDir`. */
async function emit(treeRoot: string, outDir: string, specs: string[]): Promise<void> {
  const emitter = `${treeRoot}/tests/compiler/identical_emit.ts`;
  const args = ["run", "--allow-read", "--allow-write", "--allow-env", emitter, "--out", outDir, ...specs];
  console.log((await run(Deno.execPath(), args, treeRoot)).trim());
}

/** Lists the files under `dir`, relative to it, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(`${dir}/${prefix}`)) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

const specs = await corpora();
const sha = (await run("git", ["rev-parse", "--verify", `${rev}^{commit}`])).trim();
const emitterText = await Deno.readTextFile(`${here}/identical_emit.ts`);
const digest = new Uint8Array(
  await crypto.subtle.digest("SHA-256", new TextEncoder().encode(emitterText + specs.join("\n"))),
);
const key = `${sha.slice(0, 12)}-${
  [...digest.slice(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("")
}`;
const refDir = `${cacheRoot}/${key}`;

if (!await exists(`${refDir}/done`)) {
  console.log(`compiler:identical: building the reference output of ${rev} (${sha.slice(0, 12)})`);
  await Deno.remove(refDir, { recursive: true }).catch(() => {});
  const src = `${refDir}/src`;
  await Deno.mkdir(src, { recursive: true });
  await run("sh", ["-c", `git archive ${sha} | tar -x -C '${src}'`]);
  await Deno.mkdir(`${src}/tests/compiler`, { recursive: true });
  await Deno.writeTextFile(`${src}/tests/compiler/identical_emit.ts`, emitterText);
  await emit(src, `${refDir}/out`, specs);
  await Deno.writeTextFile(`${refDir}/done`, `${sha}\n`);
} else {
  console.log(`compiler:identical: reference output of ${sha.slice(0, 12)} from the cache (${refDir})`);
}

const current = await Deno.makeTempDir({ prefix: "awc-identical-current-" });
try {
  await emit(projectRoot, current, specs);
  const refFiles = new Set(listFiles(`${refDir}/out`));
  const curFiles = new Set(listFiles(current));
  const all = [...new Set([...refFiles, ...curFiles])].sort();
  const differing: string[] = [];
  const perGroup = new Map<string, { same: number; total: number }>();
  for (const rel of all) {
    const group = rel.split("/").slice(0, 2).join(" ");
    const g = perGroup.get(group) ?? { same: 0, total: 0 };
    perGroup.set(group, g);
    g.total++;
    const a = refFiles.has(rel) ? await Deno.readFile(`${refDir}/out/${rel}`) : undefined;
    const b = curFiles.has(rel) ? await Deno.readFile(`${current}/${rel}`) : undefined;
    if (a && b && a.length === b.length && a.every((x, i) => x === b[i])) g.same++;
    else differing.push(rel);
  }
  console.log(`\n| corpus mode | identical files (locks + diagnostics + actions lock) |\n|---|---:|`);
  for (const [group, g] of perGroup) console.log(`| ${group} | ${g.same}/${g.total} |`);
  if (differing.length === 0) {
    console.log(`\ncompiler:identical: byte-identical to ${rev} (${sha.slice(0, 12)})`);
  } else {
    console.log(`\ncompiler:identical: ${differing.length} files differ from ${rev} (${sha.slice(0, 12)}):`);
    for (const rel of differing.slice(0, 20)) console.log(`  ${rel}`);
    const first = differing[0];
    const diff = await new Deno.Command("git", {
      args: ["diff", "--no-index", "--no-color", `${refDir}/out/${first}`, `${current}/${first}`],
      stdout: "piped",
    }).output();
    console.log(new TextDecoder().decode(diff.stdout).split("\n").slice(0, 80).join("\n"));
    Deno.exitCode = 1;
  }
} finally {
  await Deno.remove(current, { recursive: true });
}
