/**
 * The one table of the compiler's diagnostic codes: each code's severity, what it means and, where the fix
 * does not depend on the offending value, its hint. Every stage builds its diagnostics with
 * {@link diagnostic}, so a code cannot be used without an entry here (`docs/compiler.md` lists them).
 */
import type { Diagnostic } from "../api.ts";

interface DiagnosticSpec {
  severity: Diagnostic["severity"];
  /** What the code means, in one line (the message at the call site names the offending value). */
  means: string;
  /** The hint when it is the same for every occurrence; call sites give value-specific hints themselves. */
  hint?: string;
}

/** Every diagnostic code the compiler reports (the library run, parse, validate, imports, plan). */
export const DIAGNOSTICS = {
  // The run (compiler/mod.ts).
  "invalid-aw-json": { severity: "error", means: "`.github/workflows/aw.json` is not valid" },
  GHESNotSupportedError: {
    severity: "error",
    means: "the target host is a GitHub Enterprise Server but GHES mode is off",
    hint:
      'set "ghes": true in .github/workflows/aw.json or pass --ghes (emits upload-artifact v3.2.2 / download-artifact v3.1.0)',
  },
  // Parse.
  "not-found": { severity: "error", means: "the workflow file does not exist" },
  "no-frontmatter": {
    severity: "error",
    means: "the workflow has no frontmatter",
    hint: "start the file with a `---` line, YAML keys, and a closing `---`",
  },
  "frontmatter-unclosed": {
    severity: "error",
    means: "the frontmatter is never closed",
    hint: "add a line containing only `---` after the frontmatter",
  },
  "yaml-syntax": {
    severity: "error",
    means: "the frontmatter is not valid YAML",
    hint: "fix the YAML syntax; indentation must use spaces",
  },
  "yaml-alias-limit": {
    severity: "error",
    means: "the frontmatter's aliases expand beyond the limit (a YAML alias bomb)",
    hint: "write the values out, or use fewer `*alias` references",
  },
  "source-too-large": {
    severity: "error",
    means: "the workflow file is larger than awc reads (1 MiB)",
    hint: "move long instructions into imported files or shorten them",
  },
  "lock-too-large": {
    severity: "error",
    means: "the compiled lock file exceeds gh-aw's limit of 512,000 bytes",
    hint:
      "split the workflow, or move long prompt text into imports (runtime-imported files are not inlined)",
  },
  "workflow-failed": {
    severity: "error",
    means: "compiling this workflow failed unexpectedly; the other workflows of the run are unaffected",
    hint: "report it with the workflow file attached",
  },
  "frontmatter-not-object": {
    severity: "error",
    means: "the frontmatter is not a YAML mapping",
    hint: "write `key: value` pairs between the `---` lines",
  },
  "empty-body": {
    severity: "error",
    means: "the workflow body (the agent's instructions) is empty",
    hint: "write the agent's instructions below the frontmatter",
  },
  // Validate.
  "unknown-key": { severity: "error", means: "a frontmatter key the compiler does not know" },
  "newer-key-unsupported": {
    severity: "error",
    means: "a key gh-aw added after the target release, or one awc does not compile for that target yet",
    hint: "docs/compiler-differences.md lists the newer keys and what awc does with each",
  },
  "missing-key": { severity: "error", means: "a required frontmatter key is missing" },
  "invalid-value": { severity: "error", means: "a frontmatter value does not match the schema" },
  "unknown-engine": { severity: "error", means: "`engine:` names no known engine" },
  "invalid-trigger": {
    severity: "error",
    means: "an `on:` event's filters or inputs do not follow GitHub's workflow syntax",
  },
  "invalid-job": { severity: "error", means: "a custom job does not follow GitHub's job syntax" },
  "invalid-step": { severity: "error", means: "a step does not follow GitHub's step syntax" },
  "invalid-runs-on": { severity: "error", means: "`runs-on` is not a runner label, label list or group" },
  "invalid-service": {
    severity: "error",
    means: "`services` does not follow GitHub's service container syntax",
  },
  "invalid-container": { severity: "error", means: "`container` does not follow GitHub's container syntax" },
  "macos-runner": {
    severity: "error",
    means: "a job runs on macOS, which agentic workflows do not support",
    hint: "use a Linux runner such as `ubuntu-latest`",
  },
  "invalid-skill": {
    severity: "error",
    means: "a `skills:` entry is not a skill reference",
    hint: "use skills/<name> or owner/repo/path@<sha>",
  },
  "skill-not-found": {
    severity: "error",
    means: "a local skill has no SKILL.md",
    hint: "skill paths are relative to the repository root and name a folder containing SKILL.md",
  },
  "skill-needs-checkout": {
    severity: "error",
    means: "a local skill is copied from the checkout, but `checkout: false`",
    hint: "remove `checkout: false` or pin the skill as owner/repo/path@<sha>",
  },
  "plugins-unsupported": {
    severity: "error",
    means: "the engine cannot install the `plugins:`",
    hint: "remove `plugins:` or choose an engine that installs plugins",
  },
  // Resolve imports.
  "import-cycle": {
    severity: "error",
    means: "imports import each other in a loop",
    hint: "remove one of the imports so the chain ends",
  },
  "import-not-found": {
    severity: "error",
    means: "a local import does not exist",
    hint: "check the path; relative imports resolve from the importing file's folder",
  },
  "import-not-cached": {
    severity: "error",
    means: "a remote import is not in `.github/aw/imports/`",
    hint: "pin the import to a commit SHA and add it to .github/aw/imports/",
  },
  "import-duplicate": {
    severity: "error",
    means: "a file is imported twice with different inputs",
    hint: "import a shared file once per workflow, or give both imports the same `with:`",
  },
  "import-input-missing": { severity: "error", means: "an import's required input is not passed" },
  "import-input-unknown": { severity: "error", means: "an import is passed an input it does not declare" },
  "duplicate-safe-output": {
    severity: "error",
    means: "two imports define the same safe-output type",
    hint: "define each safe-output type once, or override it in the main workflow",
  },
  "duplicate-env": {
    severity: "error",
    means: "two imports set the same `env` variable",
    hint: "set it once, or in the main workflow (main wins)",
  },
  // Plan.
  "expression-in-script": {
    severity: "error",
    means: "an expression reading event data or inputs would be expanded inside a generated shell script",
    hint:
      "GitHub expands ${{ … }} before the script runs, so event text would become shell code; remove the expression from this value or set it through `env:` in your own step",
  },
  "invalid-schedule": { severity: "error", means: "a schedule is neither a cron nor a fuzzy schedule" },
  "unsupported-provider": { severity: "error", means: "`engine.model` names an unknown provider prefix" },
  "engine-auth-invalid": {
    severity: "error",
    means: "`engine.auth` (workload identity federation) is malformed or not available for the engine",
  },
  "oauth-token-unsupported": {
    severity: "error",
    means: "a subscription OAuth token secret is passed to an engine",
  },
  "unsupported-option": { severity: "warning", means: "an engine option the engine ignores" },
  "unsupported-gh-aw-version": {
    severity: "error",
    means: "the gh-aw release asked for (`--gh-aw-version`) is not one awc compiles for, or is blocked",
  },
  "unpinned-action": {
    severity: "error",
    means: "an action reference cannot be pinned to a commit SHA",
    hint:
      "add it to .github/aw/actions-lock.json, reference a 40-hex SHA, or compile online with GITHUB_TOKEN",
  },
  "unknown-safe-output": {
    severity: "warning",
    means: "a `safe-outputs:` key that is no registered safe-output type",
  },
  "unknown-job": { severity: "error", means: "`safe-outputs.needs` names a job that does not exist" },
} as const satisfies Record<string, DiagnosticSpec>;

/** A code of {@link DIAGNOSTICS}. */
export type DiagnosticCode = keyof typeof DIAGNOSTICS;

/** Where a diagnostic points: the file at fault and a 1-based line and column. */
export interface Location {
  file: string;
  line: number;
  column: number;
}

/**
 * A diagnostic of `code` at `at`: severity from the table, `message` naming the offending value, and the
 * given hint or else the table's.
 */
export function diagnostic(code: DiagnosticCode, at: Location, message: string, hint?: string): Diagnostic {
  const spec: DiagnosticSpec = DIAGNOSTICS[code];
  const out: Diagnostic = {
    file: at.file,
    line: at.line,
    column: at.column,
    severity: spec.severity,
    code,
    message,
  };
  const text = hint ?? spec.hint;
  if (text !== undefined) out.hint = text;
  return out;
}
