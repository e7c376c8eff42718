/** `awc compile [workflow...]`: compile, `--check` for staleness, `--watch`, `--json` diagnostics. */
import { relative, resolve } from "node:path";
import type { CompileOptions, CompileResult } from "../api.ts";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { formatDiagnostic } from "../cli/output.ts";
import { tokenFromEnv } from "../github/client.ts";
import { createActionResolver } from "./action_resolver.ts";
import { readActionsLock } from "./actions_lock.ts";
import { assessStaleness, type Staleness } from "./staleness.ts";
import { watchAndRecompile } from "./watch.ts";
import { allDiagnostics, writeChangedFiles } from "./compile_results.ts";
import { resolveRepoRoot } from "./repo.ts";
import { chooseTarget } from "./target.ts";
import { type GhAwTarget, lockCompilerVersion, SUPPORTED_VERSIONS } from "../targets/mod.ts";

/** The `compile` command. */
export const compileCommand: Command = {
  name: "compile",
  summary: "Compile agentic workflow Markdown files into .lock.yml files",
  usage: "[workflow...]",
  description: `
Compiles every workflow of .github/workflows (or the ones named) and writes <name>.lock.yml beside each
.md file, only when its content changed. With a token (GITHUB_TOKEN/GH_TOKEN), action tags missing from
.github/aw/actions-lock.json are resolved through the GitHub API.

--check writes nothing and exits 1 listing every lock file that is missing or stale, and why — including
locks made for another gh-aw release than the target. A body-only edit is not stale: the Markdown body is
loaded at run time.

The target gh-aw release (${SUPPORTED_VERSIONS}) is --gh-aw-version, else the release the existing locks
agree on (their compiler_version, else the tag of their setup action) when supported, else the newest.`,
  options: {
    dir: DIR_OPTION,
    "action-mode": {
      type: "string",
      value: "<mode>",
      choices: ["release", "dev"],
      description: "How the gh-aw setup action is referenced (default release)",
    },
    ghes: { type: "boolean", description: "GitHub Enterprise Server compatibility (artifact actions v3)" },
    "schedule-seed": {
      type: "string",
      value: "<owner/repo>",
      description: "Seed for fuzzy schedule scattering (default: owner/repo of the origin remote)",
    },
    "gh-aw-version": {
      type: "string",
      value: "<vX.Y.Z>",
      description:
        `gh-aw release to compile for (${SUPPORTED_VERSIONS}; default: what the locks say, else newest)`,
    },
    check: { type: "boolean", description: "Write nothing; exit 1 when a lock file is stale or missing" },
    watch: {
      type: "boolean",
      short: "w",
      description: "Recompile on change (only dependents of a changed file)",
    },
    json: { type: "boolean", short: "j", description: "Print machine-readable results on stdout" },
  },
  positionals: { min: 0, max: Infinity },
  run: runCompile,
};

async function runCompile(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const repoRoot = await resolveRepoRoot(deps, args.values.dir as string | undefined);
  const chosen = await chooseTarget(repoRoot, args.values["gh-aw-version"] as string | undefined);
  if ("error" in chosen) {
    deps.output.err(`error: ${chosen.error}`);
    return EXIT.usage;
  }
  if (chosen.from === "newest" && chosen.lockVersions.length > 0) {
    // The locks disagree, or name a release this awc does not compile for: say which one it uses.
    deps.output.warn(
      `the existing locks were compiled for gh-aw ${chosen.lockVersions.join(", ")}; compiling for ` +
        `${chosen.target.version} (the newest supported; --gh-aw-version chooses)`,
    );
  }
  const options = await compileOptions(deps, repoRoot, args);
  options.ghAwVersion = chosen.target.version;
  if (args.values.watch) {
    if (args.values.check) {
      deps.output.err("error: --watch and --check cannot be combined");
      return EXIT.usage;
    }
    await watchAndRecompile(deps, options);
    return EXIT.ok;
  }
  const result = await deps.compile(options);
  if (args.values.check) {
    return await reportCheck(deps, repoRoot, result, Boolean(args.values.json), chosen.target);
  }
  const written = await writeChangedFiles(repoRoot, result);
  return reportCompile(deps, result, written, Boolean(args.values.json));
}

/** Builds the core's options from the command line and environment. */
async function compileOptions(
  deps: CliDeps,
  repoRoot: string,
  args: ParsedArgs,
): Promise<CompileOptions> {
  const options: CompileOptions = {
    repoRoot,
    workflows: args.positionals.length > 0
      ? await rootRelative(deps.cwd, repoRoot, args.positionals)
      : undefined,
    actionMode: (args.values["action-mode"] as "dev" | "release" | undefined) ?? "release",
    ghes: args.values.ghes ? true : undefined,
    scheduleSeed: args.values["schedule-seed"] as string | undefined,
  };
  if (tokenFromEnv(deps.env) && !args.values.check) {
    const cache = await readActionsLock(repoRoot).catch(() => undefined);
    options.resolveAction = createActionResolver(githubClient(deps), cache, deps.output.warn);
  }
  return options;
}

/** Turns arguments naming existing files (relative to the working directory) into root-relative paths. */
async function rootRelative(cwd: string, root: string, args: string[]): Promise<string[]> {
  const realRoot = await Deno.realPath(root).catch(() => root);
  return await Promise.all(args.map(async (arg) => {
    const path = await Deno.realPath(resolve(cwd, arg)).catch(() => undefined);
    if (!path) return arg;
    const rel = relative(realRoot, path).split("\\").join("/");
    return rel.startsWith("..") ? arg : rel;
  }));
}

function hasErrors(result: CompileResult): boolean {
  return allDiagnostics(result).some((d) => d.severity === "error");
}

/** Prints the outcome of a writing compile and returns the exit code. */
export function reportCompile(
  deps: CliDeps,
  result: CompileResult,
  written: string[],
  json: boolean,
): number {
  const failed = hasErrors(result);
  if (json) {
    deps.output.out(JSON.stringify(
      {
        workflows: result.workflows.map((w) => ({
          workflow: w.source,
          lock: w.lockPath,
          valid: !w.diagnostics.some((d) => d.severity === "error"),
          written: written.includes(w.lockPath),
          diagnostics: w.diagnostics,
        })),
        diagnostics: result.diagnostics,
      },
      null,
      2,
    ));
  } else {
    for (const d of allDiagnostics(result)) deps.output.err(formatDiagnostic(d));
    const ok = result.workflows.filter((w) => w.lockContent !== undefined).length;
    deps.output.err(
      `compiled ${ok}/${result.workflows.length} workflow(s); ${written.length} file(s) written` +
        (written.length ? `: ${written.join(", ")}` : ""),
    );
  }
  return failed ? EXIT.user : EXIT.ok;
}

async function reportCheck(
  deps: CliDeps,
  repoRoot: string,
  result: CompileResult,
  json: boolean,
  target: GhAwTarget,
) {
  const verdicts: { workflow: string; lock: string; staleness: Staleness }[] = [];
  for (const workflow of result.workflows) {
    if (workflow.lockContent === undefined) continue;
    const onDisk = await Deno.readTextFile(`${repoRoot}/${workflow.lockPath}`).catch(() => undefined);
    const madeFor = onDisk === undefined ? undefined : lockCompilerVersion(onDisk);
    verdicts.push({
      workflow: workflow.source,
      lock: workflow.lockPath,
      // A lock made for another release is reported as such, whatever else changed.
      staleness: madeFor && madeFor !== target.version
        ? {
          status: "version",
          reasons: [
            `${workflow.lockPath} was compiled for gh-aw ${madeFor}, the target is ${target.version}: run ` +
            `\`awc upgrade\` (or \`awc compile --gh-aw-version ${madeFor}\` to stay on ${madeFor})`,
          ],
        }
        : await assessStaleness(repoRoot, workflow, onDisk),
    });
  }
  const stale = verdicts.filter((v) => !["fresh", "body-only"].includes(v.staleness.status));
  const failed = hasErrors(result) || stale.length > 0;
  if (json) {
    deps.output.out(JSON.stringify(
      {
        ok: !failed,
        locks: verdicts.map((v) => ({ workflow: v.workflow, lock: v.lock, ...v.staleness })),
        diagnostics: allDiagnostics(result),
      },
      null,
      2,
    ));
    return failed ? EXIT.user : EXIT.ok;
  }
  for (const d of allDiagnostics(result)) deps.output.err(formatDiagnostic(d));
  for (const v of verdicts) {
    if (v.staleness.status === "fresh") continue;
    const label = v.staleness.status === "body-only"
      ? "ok"
      : v.staleness.status === "missing"
      ? "missing"
      : v.staleness.status === "version"
      ? "other version"
      : "stale";
    deps.output.out(`${label}: ${v.lock}`);
    for (const reason of v.staleness.reasons) deps.output.out(`  - ${reason}`);
  }
  deps.output.out(
    stale.length === 0
      ? `${verdicts.length} lock file(s) up to date`
      : `${stale.length} of ${verdicts.length} lock file(s) stale or missing: run \`awc compile\``,
  );
  return failed ? EXIT.user : EXIT.ok;
}
