/**
 * `deno task conformance:ghaw` — compiles every workflow of the gh-aw corpus in dev mode (seed `dev/…`)
 * (with `--gh-aw-version v0.87.4`: the v0.87.4 corpus of gh-aw-mcpg, release mode, that target) and compares with the committed locks: compile success, hash and cron agreement, byte-identical,
 * YAML-equal, per-job equality, the most common differing paths overall and per job kind (`TOP_PER_JOB`
 * rows each, default 8). A measurement, not a gate; skips
 * cleanly when the corpus folder is absent. Paths listed in docs/compiler-differences.md (block
 * `conformance-ignore`) are intentional differences and are excluded from the YAML comparisons.
 */
import { parse } from "yaml";
import { isDeepStrictEqual } from "node:util";
import { compile, readLockMetadata } from "../../compiler/mod.ts";
import { withAddedJobKeys, withoutWithheldGrants } from "./intentional_differences.ts";

/** `--gh-aw-version v0.87.4` measures the v0.87.4 target against its corpus (release mode, gh-aw-mcpg's seed). */
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
    `conformance: no corpus for --gh-aw-version ${ghAwVersion}; known: ${Object.keys(CORPORA).join(", ")}`,
  );
  Deno.exit(2);
}
const root = Deno.env.get("GHAW_CORPUS") ??
  new URL(`../../../shared/${corpus.dir}`, import.meta.url).pathname;
try {
  await Deno.stat(`${root}/.github/workflows`);
} catch {
  console.log(`conformance: corpus not found at ${root}; skipping`);
  Deno.exit(0);
}

const docs = await Deno.readTextFile(new URL("../../docs/compiler-differences.md", import.meta.url)).catch(
  () => "",
);
const ignoreBlock = /```conformance-ignore\n([\s\S]*?)```/.exec(docs)?.[1] ?? "";
const ignores = ignoreBlock.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((g) =>
  new RegExp("^" + g.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*") + "$")
);
const ignored = (path: string) => ignores.some((r) => r.test(path));
const handlerIgnores = (/```handler-config-ignore\n([\s\S]*?)```/.exec(docs)?.[1] ?? "").split("\n").map((
  l,
) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

/** Removes intentionally different handler-config keys from a job's "Process Safe Outputs" env. */
function normaliseHandlerConfig(y: Record<string, unknown>): void {
  const so = (y.jobs as Record<string, Record<string, unknown>> | undefined)?.safe_outputs;
  for (const st of (so?.steps ?? []) as Record<string, Record<string, string>>[]) {
    const raw = st.env?.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG;
    if (!raw) continue;
    const cfg = JSON.parse(raw);
    for (const k of handlerIgnores) {
      const [type, key] = k.split(".");
      if (cfg[type]) delete cfg[type][key];
    }
    st.env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG = JSON.stringify(cfg);
  }
}

/** Heredoc names whose delimiters gh-aw draws at random in the detection job (docs/compiler-differences.md). */
const randomDetectionDelimiters = (/```detection-random-delimiters\n([\s\S]*?)```/.exec(docs)?.[1] ?? "")
  .split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));

/** Replaces those delimiters inside the `detection:` job with a placeholder, on both sides alike. */
function normaliseDetectionDelimiters(text: string): string {
  if (randomDetectionDelimiters.length === 0) return text;
  const start = text.indexOf("\n  detection:\n");
  if (start < 0) return text;
  const next = /\n {2}[a-z_][a-z0-9_-]*:\n/.exec(text.slice(start + 1));
  const end = next ? start + 1 + next.index : text.length;
  const names = randomDetectionDelimiters.join("|");
  const section = text.slice(start, end).replace(
    new RegExp(`GH_AW_(${names})_[0-9a-f]{16}_EOF`, "g"),
    "GH_AW_$1_RANDOM_EOF",
  );
  return text.slice(0, start) + section + text.slice(end);
}

/**
 * Removes the intentionally different handler-config keys from every JSON object of a safe-output type in the
 * lock text, so byte comparison applies the list too. The object appears raw (the agent's config.json heredoc)
 * and escaped inside a double-quoted YAML scalar (`GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG: "{\"add_comment\":…}"`),
 * so the quote may carry a backslash.
 */
function normaliseText(text: string): string {
  let out = normaliseDetectionDelimiters(text);
  for (const k of handlerIgnores) {
    const [type, key] = k.split(".");
    // The object may hold `${{ … }}` expressions (e.g. `target-repo`), whose braces are not its own.
    const obj = new RegExp(`(\\\\?)"${type}\\1":\\{(?:[^{}]|\\$\\{\\{[^{}]*\\}\\})*\\}`, "g");
    out = out.replace(obj, (m, q: string) =>
      m.replace(
        new RegExp(
          `${q ? "\\\\" : ""}"${key}${q ? "\\\\" : ""}":(?:true|false|null|-?\\d+|${
            q ? '\\\\"[^"\\\\]*\\\\"' : '"[^"]*"'
          }),?`,
        ),
        "",
      ).replace(/,\}$/, "}"));
  }
  return out;
}

function prune(v: unknown, path: string): unknown {
  if (Array.isArray(v)) return v.map((x, i) => prune(x, `${path}/${stepKey(x, i)}`));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!ignored(`${path}/${k}`)) out[k] = prune(x, `${path}/${k}`);
    return out;
  }
  return v;
}

function stepKey(x: unknown, i: number): string {
  return x && typeof x === "object" && typeof (x as Record<string, unknown>).name === "string"
    ? `[${(x as Record<string, unknown>).name}]`
    : `[${i}]`;
}

/** Collects differing paths (array items of steps keyed by name). */
function diffPaths(a: unknown, b: unknown, path: string, out: Set<string>, depth = 0): void {
  if (isDeepStrictEqual(a, b)) return;
  if (
    depth > 5 || typeof a !== "object" || typeof b !== "object" || a === null || b === null ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    out.add(path);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const named = (arr: unknown[]) => new Map(arr.map((x, i) => [stepKey(x, i), x]));
    const ma = named(a), mb = named(b);
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

/** The kind a job is counted under: gh-aw's built-in job names, every other job as "(other)". */
function jobKind(job: string): string {
  return ["activation", "agent", "conclusion", "detection", "pre_activation", "safe_outputs"].includes(job)
    ? job
    : "(other)";
}

const t0 = performance.now();
const result = await compile({
  repoRoot: root,
  actionMode: corpus.actionMode,
  scheduleSeed: corpus.seed,
  ghAwVersion,
});
const ms = performance.now() - t0;
let ok = 0,
  bytes = 0,
  yamlEq = 0,
  fm = 0,
  body = 0,
  cronOk = 0,
  cronTotal = 0,
  jobsEq = 0,
  jobsTotal = 0,
  allJobs = 0;
const topEq: Record<string, number> = {};
const paths = new Map<string, number>();
/** Per job kind, the differing paths inside the job (workflows affected). */
const kindPaths = new Map<string, Map<string, number>>();
const failures: string[] = [];
/** With `LIST=1`, every workflow whose lock is not byte-identical, with its first differing paths. */
const notIdentical: string[] = [];
const cronMiss: string[] = [];
const perJob: Record<string, [number, number]> = {};
for (const w of result.workflows) {
  const committed = await Deno.readTextFile(`${root}/${w.lockPath}`).catch(() => undefined);
  if (committed === undefined) continue;
  const expected = w.lockContent
    ? withAddedJobKeys(withoutWithheldGrants(committed, w.lockContent), w.lockContent)
    : committed;
  if (!w.lockContent) {
    failures.push(
      `${w.source}: ${
        w.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.line}:${d.column} ${d.message}`)
          .join("; ")
      }`,
    );
    continue;
  }
  ok++;
  const identical = normaliseText(w.lockContent) === normaliseText(expected);
  if (identical) bytes++;
  const em = readLockMetadata(expected), gm = readLockMetadata(w.lockContent);
  if (em?.frontmatter_hash === gm?.frontmatter_hash) fm++;
  if (em?.body_hash === gm?.body_hash) body++;
  const ey = prune(parse(normaliseText(expected)), "") as Record<string, unknown>;
  const gy = prune(parse(normaliseText(w.lockContent)), "") as Record<string, unknown>;
  normaliseHandlerConfig(ey);
  normaliseHandlerConfig(gy);
  const crons = (y: Record<string, unknown>) =>
    (((y.on as Record<string, unknown>)?.schedule ?? []) as { cron: string }[]).map((s) => s.cron);
  if (crons(ey).length > 0) {
    cronTotal++;
    if (isDeepStrictEqual(crons(ey), crons(gy))) cronOk++;
    else cronMiss.push(`${w.source}: expected ${crons(ey).join(",")} got ${crons(gy).join(",")}`);
  }
  if (isDeepStrictEqual(ey, gy)) yamlEq++;
  for (const k of ["name", "on", "permissions", "concurrency", "run-name", "env"]) {
    if (isDeepStrictEqual(ey[k], gy[k])) topEq[k] = (topEq[k] ?? 0) + 1;
  }
  const ej = (ey.jobs ?? {}) as Record<string, unknown>, gj = (gy.jobs ?? {}) as Record<string, unknown>;
  let all = true;
  for (const j of Object.keys(ej)) {
    jobsTotal++;
    const kind = jobKind(j);
    perJob[kind] ??= [0, 0];
    perJob[kind][1]++;
    if (isDeepStrictEqual(ej[j], gj[j])) {
      jobsEq++;
      perJob[kind][0]++;
    } else all = false;
  }
  if (all && Object.keys(ej).length === Object.keys(gj).length) allJobs++;
  const d = new Set<string>();
  diffPaths(ey, gy, "", d);
  if (!identical) {
    notIdentical.push(`${w.source}: ${d.size ? [...d].slice(0, 6).join(" ") : "(YAML-equal; bytes differ)"}`);
  }
  for (const key of new Set([...d].map((p) => p.split("/").slice(0, 5).join("/")))) {
    paths.set(key, (paths.get(key) ?? 0) + 1);
  }
  // Keyed by job kind, so custom jobs of every name pool their differences under "(other)".
  const seen = new Set<string>();
  for (const p of d) {
    if (!p.startsWith("/jobs/")) continue;
    const [job, ...rest] = p.split("/").slice(2, 5);
    const kind = jobKind(job);
    const key = `${kind}\0${rest.join("/")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const m = kindPaths.get(kind) ?? new Map<string, number>();
    m.set(rest.join("/"), (m.get(rest.join("/")) ?? 0) + 1);
    kindPaths.set(kind, m);
  }
}
const n = result.workflows.length;
const pct = (x: number, t = n) => `${x}/${t} (${t ? ((100 * x) / t).toFixed(1) : "0"}%)`;
console.log(`\ngh-aw corpus conformance (${root}; target ${ghAwVersion ?? "v0.76.1"})\n`);
console.log("| measure | result |\n|---|---|");
console.log(`| workflows compiled without error | ${pct(ok)} |`);
console.log(`| frontmatter hash agrees | ${pct(fm)} |`);
console.log(`| body hash agrees | ${pct(body)} |`);
console.log(`| scattered crons agree (workflows with schedules) | ${pct(cronOk, cronTotal)} |`);
console.log(`| byte-identical lock | ${pct(bytes)} |`);
console.log(`| YAML-equal lock | ${pct(yamlEq)} |`);
console.log(`| all jobs YAML-equal | ${pct(allJobs)} |`);
console.log(`| jobs YAML-equal (job by job) | ${pct(jobsEq, jobsTotal)} |`);
for (const k of ["name", "on", "permissions", "concurrency", "run-name", "env"]) {
  console.log(`| top-level \`${k}\` equal | ${pct(topEq[k] ?? 0)} |`);
}
for (const [k, [eq, tot]] of Object.entries(perJob).sort()) {
  console.log(`| job \`${k}\` YAML-equal | ${pct(eq, tot)} |`);
}
console.log(`| compile time (all workflows) | ${ms.toFixed(0)} ms |`);
if (Deno.env.get("LIST")) {
  console.log(`\nNot byte-identical (${notIdentical.length}):\n`);
  for (const l of notIdentical) console.log(`- ${l}`);
}
console.log("\nTop differing paths (workflows affected):\n\n| path | count |\n|---|---|");
for (
  const [p, c] of [...paths.entries()].filter(([p]) => p.includes(Deno.env.get("FILTER") ?? "")).sort((
    a,
    b,
  ) => b[1] - a[1]).slice(0, Number(Deno.env.get("TOP") ?? 25))
) {
  console.log(`| \`${p}\` | ${c} |`);
}
const perKind = Number(Deno.env.get("TOP_PER_JOB") ?? 8);
console.log("\nTop differing paths per job kind (workflows affected; the next gap of each job):");
for (const [kind, m] of [...kindPaths.entries()].sort()) {
  console.log(`\n\`${kind}\`\n\n| path | count |\n|---|---|`);
  for (
    const [p, c] of [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, perKind)
  ) {
    console.log(`| \`${p || "(job)"}\` | ${c} |`);
  }
}
if (cronMiss.length) console.log("\nCron differences:\n" + cronMiss.join("\n"));
if (failures.length) console.log("\nFailures:\n" + failures.slice(0, 20).join("\n"));
