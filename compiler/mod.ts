/**
 * The workflow compiler core (library API). `compile` turns agentic workflow Markdown files into
 * gh-aw-compatible `.lock.yml` text without writing anything; `writeCompileResult` writes changed files.
 * Also exports the hash helpers and the lock-header reader `compile --check` needs.
 */
import { DEFAULT_TARGET, targetFor } from "./targets/mod.ts";
import { type ContainerPin, parseContainerPins } from "./source/container_pins.ts";
import { posix } from "node:path";
import type {
  CompiledWorkflow,
  CompileFunction,
  CompileOptions,
  CompileResult,
  Diagnostic,
  FileReader,
} from "./api.ts";
import { compileWorkflow } from "./compile_workflow.ts";
import { type ActionsLock, parseActionsLock, PinResolver, stringifyActionsLock } from "./plan/pins.ts";
import { splitFrontmatter } from "./source/parse.ts";
import { diagnostic } from "./source/diagnostics.ts";

export type * from "./api.ts";
export { computeBodyHash, computeFrontmatterHash, heredocDelimiter } from "./source/hash.ts";
export { readLockManifest, readLockMetadata } from "./source/lock_metadata.ts";
export type { LockMetadata } from "./source/lock_metadata.ts";
export { parseSchedule } from "./plan/schedule.ts";

/** Path of the actions lock, relative to the repository root. */
export const ACTIONS_LOCK_PATH = ".github/aw/actions-lock.json";

/** A reader of files under `root` (undefined when absent). */
export function fsReader(root: string): FileReader {
  // A synchronous read: the files are small and read one after another, and each asynchronous read left
  // the event loop idle in between (an eighth of a corpus compile's wall time).
  const read: FileReader = (path: string) => {
    try {
      return Promise.resolve(Deno.readTextFileSync(posix.join(root, path)));
    } catch {
      return Promise.resolve(undefined);
    }
  };
  read.list = (dir: string) => {
    try {
      return Promise.resolve([...Deno.readDirSync(posix.join(root, dir))].map((entry) => entry.name).sort());
    } catch {
      return Promise.resolve(undefined);
    }
  };
  return read;
}

async function listWorkflows(root: string): Promise<string[]> {
  const dir = posix.join(root, ".github/workflows");
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".md") || e.name.toLowerCase() === "readme.md") continue;
      out.push(`.github/workflows/${e.name}`);
    }
  } catch {
    return [];
  }
  return out.sort();
}

function normaliseTarget(w: string): string {
  if (w.endsWith(".md")) return w.includes("/") ? w.replace(/^\.\//, "") : `.github/workflows/${w}`;
  return `.github/workflows/${w}.md`;
}

/** Reads `aw.json` (`.github/workflows/aw.json`); diagnostics for invalid content. */
async function readRepoConfig(
  read: FileReader,
  diags: Diagnostic[],
): Promise<{ ghes: boolean; containerPins: Record<string, ContainerPin>; failureIssueExpires?: number }> {
  const path = ".github/workflows/aw.json";
  const text = await read(path);
  if (text === undefined) return { ghes: false, containerPins: {} };
  try {
    const v = JSON.parse(text);
    if (v.ghes !== undefined && typeof v.ghes !== "boolean") {
      diags.push(
        diagnostic(
          "invalid-aw-json",
          { file: path, line: 1, column: 1 },
          "`ghes` in aw.json must be a boolean",
          'write "ghes": true or false',
        ),
      );
    }
    const exp = v.maintenance?.action_failure_issue_expires;
    const containerPins = parseContainerPins(v.container_pins);
    for (const message of containerPins.problems) {
      diags.push(
        diagnostic(
          "invalid-aw-json",
          { file: path, line: 1, column: 1 },
          message,
          'write "container_pins": {"image:tag": {"image": "registry/image:tag", "digest": "sha256:<64 hex>"}}',
        ),
      );
    }
    return {
      ghes: v.ghes === true,
      containerPins: containerPins.pins,
      failureIssueExpires: typeof exp === "number" ? exp : undefined,
    };
  } catch (e) {
    diags.push(
      diagnostic(
        "invalid-aw-json",
        { file: path, line: 1, column: 1 },
        `aw.json is not valid JSON: ${(e as Error).message}`,
      ),
    );
    return { ghes: false, containerPins: {} };
  }
}

/** Host of the GitHub server this compile targets (`GH_HOST`, else github.com). */
function envHost(): string | undefined {
  try {
    return Deno.env.get("GH_HOST") ?? Deno.env.get("GITHUB_SERVER_URL")?.replace(/^https?:\/\//, "");
  } catch {
    return undefined;
  }
}

/**
 * The repository's git config text: `.git/config`, or in a linked worktree (where `.git` is a file naming
 * its git dir) the config of the main repository that dir shares (`commondir`). Read through `read`, with
 * paths relative to the repository root.
 */
export async function gitConfigText(repoRoot: string, read: FileReader): Promise<string | undefined> {
  const direct = await read(".git/config");
  if (direct !== undefined) return direct;
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec((await read(".git")) ?? "")?.[1];
  if (!pointer) return undefined;
  const root = posix.resolve(repoRoot);
  const gitDir = posix.relative(root, posix.resolve(root, pointer));
  const common = (await read(posix.join(gitDir, "commondir")))?.trim();
  return await read(posix.join(gitDir, common ?? "", "config")) ?? await read(posix.join(gitDir, "config"));
}

/** The URL of the `origin` remote in a `.git/config` text. */
function originRemoteUrl(gitConfig: string | undefined): string | undefined {
  if (!gitConfig) return undefined;
  const section = /\[remote "origin"\]([^\[]*)/.exec(gitConfig)?.[1] ?? "";
  return /^\s*url\s*=\s*(\S+)\s*$/m.exec(section)?.[1];
}

/**
 * `owner/repo` of the `origin` remote in a `.git/config` text (https, ssh:// or scp-like URLs): gh-aw's
 * seed for scattering fuzzy schedules, so the same workflow in two repositories fires at different times.
 */
export function originSlug(gitConfig: string | undefined): string | undefined {
  const url = originRemoteUrl(gitConfig);
  const path = url &&
    (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url.replace(/^[^/]*\/\/[^/]*/, "") : url.split(":")[1]);
  const match = path?.match(/([^/:]+)\/([^/]+?)(?:\.git)?\/?$/);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The host of the repository's `origin` remote from `.git/config` (https, ssh:// or scp-like `git@host:`
 * URLs), so a clone of a GitHub Enterprise Server repository is recognised without GH_HOST.
 */
export function originHost(gitConfig: string | undefined): string | undefined {
  const url = originRemoteUrl(gitConfig);
  if (!url) return undefined;
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)/.exec(url);
  if (scp && !/^[a-z]+:\/\//i.test(url)) return scp[1].toLowerCase();
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** Compiles workflows (nothing is written). */
export const compile: CompileFunction = async (options: CompileOptions): Promise<CompileResult> => {
  const baseRead = options.readFile ?? fsReader(options.repoRoot);
  // Shared imports are read by many workflows (and twice for hashing): memoise per run.
  const cache = new Map<string, Promise<string | undefined>>();
  const read: FileReader = (p) => {
    let v = cache.get(p);
    if (!v) cache.set(p, v = baseRead(p));
    return v;
  };
  read.list = baseRead.list;
  const diagnostics: Diagnostic[] = [];
  const repoConfig = await readRepoConfig(read, diagnostics);
  const ghes = options.ghes ?? repoConfig.ghes;
  const gitConfig = await gitConfigText(options.repoRoot, read);
  const host = envHost() ?? originHost(gitConfig) ?? "github.com";
  if (!ghes && host !== "github.com" && !host.endsWith(".ghe.com")) {
    diagnostics.push(
      diagnostic(
        "GHESNotSupportedError",
        { file: ".github/workflows/aw.json", line: 1, column: 1 },
        `GHESNotSupportedError: ${host} is a GitHub Enterprise Server host; the default artifact actions (v4+) do not work there`,
      ),
    );
    return { workflows: [], diagnostics };
  }
  const chosen = options.ghAwVersion === undefined
    ? { target: DEFAULT_TARGET }
    : targetFor(options.ghAwVersion);
  if ("error" in chosen) {
    diagnostics.push(
      diagnostic("unsupported-gh-aw-version", { file: ACTIONS_LOCK_PATH, line: 1, column: 1 }, chosen.error),
    );
    return { workflows: [], diagnostics };
  }
  const target = chosen.target;
  const lockText = await read(ACTIONS_LOCK_PATH);
  const actionsLock = parseActionsLock(lockText);
  const pins = new PinResolver(actionsLock, options.resolveAction, target.pins);
  // Container digests recorded in actions-lock.json apply like aw.json pins; aw.json wins on conflict.
  const containerPins = { ...lockedContainerPins(actionsLock), ...repoConfig.containerPins };
  const targets = options.workflows && options.workflows.length > 0
    ? options.workflows.map(normaliseTarget)
    : await listWorkflows(options.repoRoot);
  const actionMode = options.actionMode ?? "release";
  // Fuzzy schedules are seeded by `owner/repo` (--schedule-seed, else the origin remote, as gh-aw); without
  // either the path alone seeds them, which stays deterministic.
  const seed = options.scheduleSeed ??
    (actionMode === "dev" ? undefined : originSlug(gitConfig));
  const seedPrefix = actionMode === "dev" ? "dev/" : seed ? `${seed}/` : "";
  // Locks compiled in this run, by path: a workflow whose `dispatch-workflow` / `call-workflow` target is
  // compiled in the same run reads the target's new lock, never a stale one on disk, so one compile gives
  // what a second one would (a workflow read a lock before its own compile is compiled once more).
  const fresh = new Map<string, string>();
  const runLocks = new Set([...new Set(targets)].map((t) => t.replace(/\.md$/, ".lock.yml")));
  const sawLocks = new Map<string, Map<string, string | undefined>>();
  const readerFor = (source: string): FileReader => {
    const saw = new Map<string, string | undefined>();
    sawLocks.set(source, saw);
    const r: FileReader = async (p) => {
      const v = fresh.has(p) ? fresh.get(p) : await read(p);
      if (runLocks.has(p) && p !== source.replace(/\.md$/, ".lock.yml")) saw.set(p, v);
      return v;
    };
    r.list = read.list;
    return r;
  };
  const compileSource = async (source: string): Promise<CompiledWorkflow | undefined> => {
    const content = await read(source);
    if (content !== undefined && !options.workflows?.length) {
      // Shared components (no `on:`) in the workflows folder are not compiled.
      try {
        const split = splitFrontmatter(content);
        if (!split.hasFrontmatter || !/^on:/m.test(split.frontmatterText)) return undefined;
      } catch {
        // let compileWorkflow report it
      }
    }
    if (content !== undefined && content.length > MAX_SOURCE_BYTES) {
      return failed(
        source,
        diagnostic(
          "source-too-large",
          { file: source, line: 1, column: 1 },
          `the workflow file is ${content.length.toLocaleString("en")} bytes; the limit is ${
            MAX_SOURCE_BYTES.toLocaleString("en")
          }`,
        ),
      );
    }
    try {
      const compiled = await compileWorkflow({
        source,
        read: readerFor(source),
        target,
        actionMode,
        ghes,
        seedPrefix,
        pins,
        now: new Date(),
        failureIssueExpires: repoConfig.failureIssueExpires,
        containerPins,
      });
      const size = compiled.lockContent === undefined ? 0 : utf8Length(compiled.lockContent, MAX_LOCK_BYTES);
      if (size > MAX_LOCK_BYTES) {
        // gh-aw refuses such locks too: GitHub Actions rejects workflow files this large.
        return {
          ...compiled,
          lockContent: undefined,
          diagnostics: [
            ...compiled.diagnostics,
            diagnostic(
              "lock-too-large",
              { file: source, line: 1, column: 1 },
              `the compiled lock file would be ${size.toLocaleString("en")} bytes; the limit is ${
                MAX_LOCK_BYTES.toLocaleString("en")
              }`,
            ),
          ],
        };
      }
      return compiled;
    } catch (error) {
      // One workflow's failure never stops the others nor leaves `--json` incomplete: it becomes that
      // workflow's located diagnostic (name and message only, no stack trace).
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return failed(
        source,
        diagnostic("workflow-failed", { file: source, line: 1, column: 1 }, `compiling failed: ${reason}`),
      );
    }
  };
  const workflows: CompiledWorkflow[] = [];
  for (const source of [...new Set(targets)].sort()) {
    const compiled = await compileSource(source);
    if (!compiled) continue;
    workflows.push(compiled);
    if (compiled.lockContent !== undefined) fresh.set(compiled.lockPath, compiled.lockContent);
  }
  // Workflows that read a lock of this run other than as it ended up (compiled later, or changed since)
  // are compiled again; a lock's own targets' inputs do not depend on it, so this settles in a few passes.
  for (let pass = 0; pass < 3; pass++) {
    const stale = workflows.filter((w) =>
      [...(sawLocks.get(w.source) ?? new Map()).entries()].some(([p, v]) =>
        fresh.has(p) && fresh.get(p) !== v
      )
    );
    if (stale.length === 0) break;
    for (const w of stale) {
      const again = await compileSource(w.source);
      if (!again) continue;
      workflows[workflows.indexOf(w)] = again;
      if (again.lockContent !== undefined) fresh.set(again.lockPath, again.lockContent);
    }
  }
  return { workflows, diagnostics, actionsLock: pins.changed ? stringifyActionsLock(pins.lock) : undefined };
};

/**
 * The UTF-8 length of `text`, or 0 when it cannot exceed `limit`: a UTF-16 code unit never takes more than
 * three UTF-8 bytes, so typical locks skip the encoding (which cost more than emitting them).
 */
function utf8Length(text: string, limit: number): number {
  return text.length * 3 <= limit ? 0 : new TextEncoder().encode(text).length;
}

/** gh-aw's limit on a compiled lock file (bytes). */
export const MAX_LOCK_BYTES = 512_000;
/** The largest workflow source read (bytes): a bound on parse time and memory for hostile input. */
export const MAX_SOURCE_BYTES = 1_048_576;

/** A workflow that produced no lock, with its one diagnostic. */
function failed(source: string, problem: Diagnostic): CompiledWorkflow {
  return {
    source,
    lockPath: source.replace(/\.md$/, ".lock.yml"),
    dependencies: [source],
    diagnostics: [problem],
  };
}

/** The well-formed `containers` entries of `actions-lock.json` as container pins (others are ignored). */
function lockedContainerPins(lock: ActionsLock): Record<string, ContainerPin> {
  const out: Record<string, ContainerPin> = {};
  for (const [ref, entry] of Object.entries(lock.containers ?? {})) {
    if (
      entry && typeof entry.image === "string" && typeof entry.digest === "string" &&
      /^sha256:[0-9a-f]{64}$/.test(entry.digest)
    ) out[ref] = { image: entry.image, digest: entry.digest };
  }
  return out;
}

/** What {@link writeCompileResult} changed. */
export interface WriteSummary {
  written: string[];
  unchanged: string[];
}

/** Normalises heredoc tokens so a rewrite is skipped when only delimiters would change. */
function normaliseForCompare(text: string): string {
  return text.replace(/GH_AW_([A-Z_]+)_[0-9a-f]{16}_EOF/g, "GH_AW_$1_NORM_EOF");
}

/** Writes each lock whose content changed, and `actions-lock.json` when updated. */
export async function writeCompileResult(repoRoot: string, result: CompileResult): Promise<WriteSummary> {
  const summary: WriteSummary = { written: [], unchanged: [] };
  const write = async (rel: string, text: string) => {
    const full = posix.join(repoRoot, rel);
    let prior: string | undefined;
    try {
      prior = await Deno.readTextFile(full);
    } catch {
      prior = undefined;
    }
    if (prior !== undefined && normaliseForCompare(prior) === normaliseForCompare(text)) {
      summary.unchanged.push(rel);
      return;
    }
    await Deno.mkdir(posix.dirname(full), { recursive: true });
    await Deno.writeTextFile(full, text);
    summary.written.push(rel);
  };
  for (const w of result.workflows) if (w.lockContent !== undefined) await write(w.lockPath, w.lockContent);
  if (result.actionsLock !== undefined) await write(ACTIONS_LOCK_PATH, result.actionsLock);
  return summary;
}
