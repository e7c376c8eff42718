/**
 * The contract between the compiler core (pipeline: parse → validate → resolve → plan → emit) and the `awc`
 * command-line layer. The core implements these in `compiler/mod.ts`; commands only use what is declared
 * here, so both sides can evolve independently.
 */

/** A located diagnostic, rendered by the CLI as `file:line:col: error: message` plus the hint. */
export interface Diagnostic {
  /** Path of the file at fault, relative to the repository root (the original file, even for imports). */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Severity. Errors fail the command (exit 1). */
  severity: "error" | "warning";
  /** What is wrong, naming the offending value. */
  message: string;
  /** How to fix it. */
  hint?: string;
  /** Stable code, for `--json` consumers (for example `unknown-key`, `GHESNotSupportedError`). */
  code?: string;
}

/** Resolves an action reference (`owner/repo@tag`) to a 40-hex commit SHA; undefined when unknown. */
export type ActionResolver = (repo: string, version: string) => Promise<string | undefined>;

/**
 * Reads a file; the core never touches the file system directly. Returns undefined when absent. A reader
 * may also list a folder's entry names (`list`), which resolving a branch-pinned remote import needs.
 */
export type FileReader = ((path: string) => Promise<string | undefined>) & {
  list?: (dir: string) => Promise<string[] | undefined>;
};

/** Options of one compile run. */
export interface CompileOptions {
  /** Repository root (absolute path). */
  repoRoot: string;
  /** Workflow `.md` paths (relative to the root) or names; empty means every workflow in `.github/workflows`. */
  workflows?: string[];
  /** `release` (default; references the pinned setup action) or `dev` (how gh-aw compiles itself). */
  actionMode?: "dev" | "release";
  /** GHES compatibility (artifact actions v3). Also enabled by `aw.json` `ghes: true`. */
  ghes?: boolean;
  /** Seed for fuzzy schedule scattering (`owner/repo`); defaults to the origin remote's slug. */
  scheduleSeed?: string;
  /** Resolves action tags not found in `actions-lock.json`; omitted means offline (built-in pins only). */
  resolveAction?: ActionResolver;
  /** File reader; defaults to the real file system under `repoRoot`. */
  readFile?: FileReader;
  /**
   * The gh-aw release to compile for (`v0.76.1`, `v0.87.4`; see compiler/targets/). Omitted: v0.76.1 (the
   * CLI chooses from the repository's locks, see `awc compile --gh-aw-version`).
   */
  ghAwVersion?: string;
}

/** One compiled workflow. */
export interface CompiledWorkflow {
  /** Source `.md` path relative to the root. */
  source: string;
  /** Lock file path relative to the root (`<name>.lock.yml` beside the source). */
  lockPath: string;
  /** The full lock file text (LF line ends). Absent when the workflow had errors. */
  lockContent?: string;
  /** Paths (relative to the root) of every file this workflow's output depends on (itself and imports). */
  dependencies: string[];
  /** Diagnostics of this workflow. */
  diagnostics: Diagnostic[];
}

/** Result of a compile run (nothing is written; the caller writes changed files). */
export interface CompileResult {
  /** Every compiled workflow, in path order. */
  workflows: CompiledWorkflow[];
  /** Updated `actions-lock.json` text when resolution added entries, else undefined. */
  actionsLock?: string;
  /** Diagnostics not tied to one workflow (for example a bad `aw.json`). */
  diagnostics: Diagnostic[];
}

/** The core's entry point, implemented in `compiler/mod.ts`. */
export type CompileFunction = (options: CompileOptions) => Promise<CompileResult>;
