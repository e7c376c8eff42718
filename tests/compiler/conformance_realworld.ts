/**
 * `deno task conformance:realworld` — compiles the real-world corpus (../shared/realworld-corpus: workflows
 * other people wrote, with the locks gh-aw compiled for them) as their repositories would, in release mode
 * seeded by `owner/repo`, and compares with gh-aw's locks: compile success, frontmatter-hash agreement,
 * byte-identical, and job-by-job YAML equality with version drift masked. A measurement, not a gate; skips
 * cleanly when the corpus is absent (CI has no corpus).
 *
 * Masked as version drift (the locks are gh-aw v0.76.1 and v0.77.5; awc targets v0.76): the pinned SHA and
 * version comment of every `uses:`, container image tags and digests, and gh-aw/AWF/MCP-gateway version
 * strings (`v0.N.N`) anywhere in a value; and the grants docs/compiler-differences.md withholds on purpose
 * (`permission-grants-withheld`, only where awc's lock withholds them). Nothing else is masked; every other
 * difference is awc's to explain.
 */
import { parse } from "yaml";
import { isDeepStrictEqual } from "node:util";
import { compile, readLockMetadata } from "../../compiler/mod.ts";
import { withAddedJobKeys, withoutWithheldGrants } from "./intentional_differences.ts";

const root = Deno.env.get("REALWORLD_CORPUS") ??
  new URL("../../../shared/realworld-corpus", import.meta.url).pathname;
try {
  await Deno.stat(root);
} catch {
  console.log(`conformance:realworld: corpus not found at ${root}; skipping`);
  Deno.exit(0);
}

/** Snapshot folder → the repository its locks were compiled in (the schedule seed). */
const SNAPSHOTS: Record<string, string> = {
  "githubnext__agentics/agentics": "githubnext/agentics",
  "Z3Prover__z3/z3": "Z3Prover/z3",
  "Z3Prover__z3/z3-0604": "Z3Prover/z3",
};

function maskDrift(value: unknown): unknown {
  if (typeof value === "string") {
    return value
      .replace(/@[0-9a-f]{40}( # \S+)?/g, "@<pin>")
      .replace(/(ghcr\.io\/[\w./-]+):[\w.-]+(@sha256:[0-9a-f]{64})?/g, "$1:<tag>")
      .replace(/\bv?\d+\.\d+\.\d+(?:-[\w.]+)?\b/g, "<version>");
  }
  if (Array.isArray(value)) return value.map(maskDrift);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDrift(v)]));
  }
  return value;
}

function diffPaths(a: unknown, b: unknown, path: string, out: Set<string>, depth = 0): void {
  if (isDeepStrictEqual(a, b)) return;
  if (
    depth > 4 || typeof a !== "object" || typeof b !== "object" || !a || !b ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    out.add(path);
    return;
  }
  const keyOf = (x: unknown, i: number) =>
    x && typeof x === "object" && typeof (x as Record<string, unknown>).name === "string"
      ? `[${(x as Record<string, unknown>).name}]`
      : `[${i}]`;
  if (Array.isArray(a) && Array.isArray(b)) {
    const ma = new Map(a.map((x, i) => [keyOf(x, i), x]));
    const mb = new Map(b.map((x, i) => [keyOf(x, i), x]));
    for (const k of new Set([...ma.keys(), ...mb.keys()])) {
      diffPaths(ma.get(k), mb.get(k), `${path}/${k}`, out, depth + 1);
    }
    return;
  }
  const oa = a as Record<string, unknown>, ob = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(oa), ...Object.keys(ob)])) {
    diffPaths(oa[k], ob[k], `${path}/${k}`, out, depth + 1);
  }
}

const rows: string[] = [];
const topPaths = new Map<string, number>();
for (const [folder, repo] of Object.entries(SNAPSHOTS)) {
  const dir = `${root}/${folder}`;
  const locks = `${dir}/ghaw-locks`;
  const expected = new Map<string, string>();
  for await (const entry of Deno.readDir(locks)) {
    if (entry.name.endsWith(".lock.yml")) {
      expected.set(entry.name, await Deno.readTextFile(`${locks}/${entry.name}`));
    }
  }
  const result = await compile({ repoRoot: dir, actionMode: "release", scheduleSeed: repo });
  let compiled = 0, hashes = 0, identical = 0, jobsEqual = 0, jobsTotal = 0, compared = 0;
  for (const workflow of result.workflows) {
    const name = workflow.lockPath.split("/").at(-1)!;
    const committed = expected.get(name);
    if (!committed) continue;
    compared++;
    if (workflow.lockContent === undefined) continue;
    const theirs = withAddedJobKeys(
      withoutWithheldGrants(committed, workflow.lockContent),
      workflow.lockContent,
    );
    compiled++;
    if (
      readLockMetadata(theirs)?.frontmatter_hash === readLockMetadata(workflow.lockContent)?.frontmatter_hash
    ) hashes++;
    if (theirs === workflow.lockContent) identical++;
    const ours = maskDrift(parse(workflow.lockContent)) as Record<string, Record<string, unknown>>;
    const gh = maskDrift(parse(theirs)) as Record<string, Record<string, unknown>>;
    for (const job of new Set([...Object.keys(gh.jobs ?? {}), ...Object.keys(ours.jobs ?? {})])) {
      jobsTotal++;
      if (isDeepStrictEqual(gh.jobs?.[job], ours.jobs?.[job])) jobsEqual++;
      else {
        const paths = new Set<string>();
        diffPaths(gh.jobs?.[job], ours.jobs?.[job], job, paths);
        for (const p of paths) topPaths.set(p, (topPaths.get(p) ?? 0) + 1);
      }
    }
  }
  rows.push(
    `| ${folder} | ${compiled}/${compared} | ${hashes}/${compiled} | ${identical}/${compiled} | ${jobsEqual}/${jobsTotal} |`,
  );
}
console.log("| snapshot | compiled | frontmatter hash agrees | byte-identical | jobs equal (drift masked) |");
console.log("| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
console.log("\nmost common differing paths (job/step/key, count):");
for (const [path, count] of [...topPaths].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`  ${count}  ${path}`);
}
