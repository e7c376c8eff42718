/**
 * The keys the frontmatter accepts, per map (gh-aw v0.76's schema plus the spec's additions): what the
 * validator checks unknown keys and did-you-mean hints against. Data tables only.
 */

/** Top-level frontmatter keys (gh-aw's 56 + the spec's additions). */
export const TOP_LEVEL_KEYS = [
  "cache",
  "check-for-updates",
  "checkout",
  "concurrency",
  "container",
  "description",
  "disable-model-invocation",
  "emoji",
  "engine",
  "env",
  "environment",
  "experiments",
  "features",
  "github-app",
  "if",
  "import-schema",
  "imports",
  "inline-sub-agents",
  "inlined-imports",
  "jobs",
  "labels",
  "max-effective-tokens",
  "max-runs",
  "max-turns",
  "mcp-scripts",
  "mcp-servers",
  "metadata",
  "models",
  "name",
  "network",
  "observability",
  "on",
  "permissions",
  "post-steps",
  "pre-agent-steps",
  "pre-steps",
  "private",
  "rate-limit",
  "redirect",
  "resources",
  "run-install-scripts",
  "run-name",
  "runs-on",
  "runs-on-slim",
  "runtimes",
  "safe-outputs",
  "sandbox",
  "secret-masking",
  "secrets",
  "services",
  "source",
  "steps",
  "strict",
  "timeout-minutes",
  "tools",
  "tracker-id",
  "user-rate-limit",
  // spec additions
  "skills",
  "plugins",
  "providers",
  "footer",
] as const;

/** Keys allowed under `on:`. */
export const ON_KEYS = [
  "allow-bot-authored-trigger-comment",
  "bots",
  "branch_protection_rule",
  "check_run",
  "check_suite",
  "command",
  "create",
  "delete",
  "deployment",
  "deployment_status",
  "discussion",
  "discussion_comment",
  "fork",
  "github-app",
  "github-token",
  "gollum",
  "issue_comment",
  "issues",
  "label",
  "label_command",
  "labels",
  "manual-approval",
  "merge_group",
  "milestone",
  "needs",
  "page_build",
  "permissions",
  "public",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "pull_request_target",
  "push",
  "reaction",
  "registry_package",
  "release",
  "repository_dispatch",
  "roles",
  "schedule",
  "skip-author-associations",
  "skip-bots",
  "skip-if-check-failing",
  "skip-if-match",
  "skip-if-no-match",
  "skip-roles",
  "slash_command",
  "stale-check",
  "status",
  "status-comment",
  "steps",
  "stop-after",
  "watch",
  "workflow_call",
  "workflow_dispatch",
  "workflow_run",
  "lock-for-agent",
];

/**
 * Every key of `safe-outputs:`, once: a `global` setting of the safe-outputs job or a safe-output `type`
 * (whose module is in plan/safe_outputs/types/). The lists below derive from it.
 */
export const SAFE_OUTPUT_KEY_KINDS: Readonly<Record<string, "global" | "type">> = {
  actions: "global",
  "activation-comments": "global",
  "add-comment": "type",
  "add-labels": "type",
  "add-reviewer": "type",
  "allowed-domains": "global",
  "allowed-github-references": "global",
  "assign-milestone": "type",
  "assign-to-agent": "type",
  "assign-to-user": "type",
  "autofix-code-scanning-alert": "type",
  "call-workflow": "type",
  "close-discussion": "type",
  "close-issue": "type",
  "close-pull-request": "type",
  "concurrency-group": "global",
  "create-agent-session": "type",
  "create-agent-task": "type",
  "create-check-run": "type",
  "create-code-scanning-alert": "type",
  "create-discussion": "type",
  "create-issue": "type",
  "create-project": "type",
  "create-project-status-update": "type",
  "create-pull-request": "type",
  "create-pull-request-review-comment": "type",
  "dispatch-workflow": "type",
  "dispatch_repository": "type",
  env: "global",
  environment: "global",
  "failure-issue-repo": "global",
  footer: "global",
  "github-app": "global",
  "github-token": "global",
  "group-reports": "global",
  "hide-comment": "type",
  "id-token": "global",
  jobs: "global",
  "link-sub-issue": "type",
  "mark-pull-request-as-ready-for-review": "type",
  "max-bot-mentions": "global",
  "max-patch-files": "global",
  "max-patch-size": "global",
  mentions: "global",
  "merge-pull-request": "type",
  messages: "global",
  "missing-data": "type",
  "missing-tool": "type",
  needs: "global",
  noop: "type",
  "push-to-pull-request-branch": "type",
  "remove-labels": "type",
  "reply-to-pull-request-review-comment": "type",
  "report-failure-as-issue": "global",
  "report-incomplete": "type",
  "resolve-pull-request-review-thread": "type",
  "runs-on": "global",
  scripts: "global",
  "set-issue-field": "type",
  "set-issue-type": "type",
  staged: "global",
  steps: "global",
  "submit-pull-request-review": "type",
  "threat-detection": "global",
  "unassign-from-user": "type",
  "update-discussion": "type",
  "update-issue": "type",
  "update-project": "type",
  "update-pull-request": "type",
  "update-release": "type",
  "upload-artifact": "type",
  "upload-asset": "type",
  "comment-memory": "type",
};

/** Safe-output keys. */
export const SAFE_OUTPUT_KEYS: readonly string[] = Object.keys(SAFE_OUTPUT_KEY_KINDS);

/** The global (non-type) keys of `safe-outputs:`. */
export const SAFE_OUTPUT_GLOBAL_KEYS: ReadonlySet<string> = new Set(
  SAFE_OUTPUT_KEYS.filter((key) => SAFE_OUTPUT_KEY_KINDS[key] === "global"),
);

/** The safe-output types of `safe-outputs:`. */
export const SAFE_OUTPUT_TYPE_KEYS: readonly string[] = SAFE_OUTPUT_KEYS.filter((key) =>
  SAFE_OUTPUT_KEY_KINDS[key] === "type"
);

/** Tool keys (`mcp-servers` is accepted under tools as the spec places it there). */
export const TOOL_KEYS = [
  "agentic-workflows",
  "bash",
  "cache-memory",
  "cli-proxy",
  "comment-memory",
  "edit",
  "github",
  "grep",
  "playwright",
  "repo-memory",
  "serena",
  "startup-timeout",
  "timeout",
  "web-fetch",
  "web-search",
  "mcp-servers",
];

/** Engine object keys. */
export const ENGINE_KEYS = [
  "agent",
  "api-target",
  "args",
  "auth",
  "bare",
  "command",
  "concurrency",
  "config",
  "description",
  "display-name",
  "env",
  "harness",
  "id",
  "max-continuations",
  "max-turns",
  "mcp",
  "model",
  "models",
  "options",
  "permission-mode",
  "provider",
  "runtime",
  "runtime-id",
  "token-weights",
  "user-agent",
  "version",
];

/** Engine ids accepted. */
export const ENGINE_IDS = ["copilot", "claude", "codex", "gemini", "crush", "antigravity", "opencode", "pi"];

/** Where the newer-key facts come from: gh-aw's frontmatter schema after v0.76. */
export const NEWER_SCHEMA_SOURCE = "gh-aw main at 00c16a5 (v0.89 era)";

/**
 * Top-level keys gh-aw added after v0.76 that awc refuses, each with why the runtime awc pins (AWF v0.25.58,
 * the gh-aw v0.76 actions) cannot honour it. A refused key is an error that names the key, where gh-aw added
 * it and this reason — never "unknown key". Keys gh-aw added that awc supports are in TOP_LEVEL_KEYS instead.
 */
export const NEWER_REFUSED_KEYS: Readonly<Record<string, string>> = {
  "intent":
    "gh-aw renders it as a lock-file comment; awc has no such header line yet, and silently dropping " +
    "a statement of purpose would mislead reviewers — move it to `description:`",
  "threat-detection-suppress":
    "its CTR-nnn rules are the later compiler's threat-detection checks, which the " +
    "pinned compiler does not run, so a suppression would silence nothing",
  "ambient-folders":
    "needs the later activation artifact layout; the pinned actions neither bundle nor restore " +
    "such folders",
  "runner": "`runner.topology` is read by AWF releases after the pinned v0.25.58, which has no arc-dind mode",
  "max-tool-denials": "enforced by the later Copilot SDK / Pi drivers; the pinned engines run their CLIs, " +
    "which have no denial counter",
  "max-tool-calls": "enforced by the later Copilot SDK / Pi drivers; the pinned engines run their CLIs, " +
    "which have no tool-call budget",
  "max-ai-credits": "the pinned AWF v0.25.58 API proxy budgets effective tokens (`max-effective-tokens`, " +
    "default 25,000,000), not AI Credits; awc will not pretend to enforce a credit limit — set " +
    "`max-effective-tokens` instead",
  "max-daily-ai-credits":
    "a 24-hour AI Credits guardrail needs the later AWF credit accounting; the pinned " +
    "AWF v0.25.58 counts effective tokens per run only",
  "max-turn-cache-misses": "maps to `apiProxy.maxCacheMisses`, which the pinned AWF v0.25.58 does not read",
  "excluded-env": "passed to AWF as `--exclude-env`, a flag the pinned AWF v0.25.58 does not have",
  "model": "a workflow-wide default model arrived with later engine wiring; set `engine.model` instead",
  "graders": "experimental run graders need the later gh-aw actions (grader scripts), which the pinned " +
    "v0.76 actions do not ship",
  "evals":
    "experimental BinEval jobs need the later gh-aw actions, which the pinned v0.76 actions do not ship",
};
