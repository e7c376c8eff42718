/**
 * Compiles every corpus that `deno task compiler:identical` compares (the gh-aw corpus, each snapshot of the
 * real-world corpus and our own fixtures, each in dev and release mode) and writes every lock, the
 * diagnostics and the updated actions lock under `--out DIR`. Only the public `compile` API is used, so the
 * same file runs against an older revision's compiler (the driver copies it into that revision's tree).
 *
 * Usage: deno run --allow-read --allow-write --allow-env identical_emit.ts --out DIR CORPUS...
 * where CORPUS is `name=path=seed` (path is a repository root with `.github/workflows`).
 */
import { compile } from "../../compiler/mod.ts";

const args = [...Deno.args];
const outIndex = args.indexOf("--out");
if (outIndex < 0 || !args[outIndex + 1]) throw new Error("identical_emit: --out DIR is required");
const out = args[outIndex + 1];
args.splice(outIndex, 2);

let count = 0;
for (const spec of args) {
  const [name, root, seed] = spec.split("=");
  if (!name || !root || !seed) throw new Error(`identical_emit: corpus "${spec}" is not name=path=seed`);
  for (const actionMode of ["dev", "release"] as const) {
    const result = await compile({ repoRoot: root, actionMode, scheduleSeed: seed });
    const dir = `${out}/${name}/${actionMode}`;
    await Deno.mkdir(dir, { recursive: true });
    const diagnostics: Record<string, unknown> = { "(run)": result.diagnostics };
    for (const w of result.workflows) {
      diagnostics[w.source] = {
        lockPath: w.lockPath,
        dependencies: w.dependencies,
        diagnostics: w.diagnostics,
      };
      const file = `${dir}/${w.source.replaceAll("/", "__")}.lock.yml`;
      await Deno.writeTextFile(file, w.lockContent ?? "(no lock: the workflow has errors)\n");
      count++;
    }
    await Deno.writeTextFile(`${dir}/_diagnostics.json`, JSON.stringify(diagnostics, null, 1) + "\n");
    await Deno.writeTextFile(`${dir}/_actions-lock.json`, result.actionsLock ?? "(unchanged)\n");
  }
}
console.log(`identical_emit: ${count} workflows compiled into ${out}`);
