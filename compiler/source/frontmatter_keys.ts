import type { GhAwTarget } from "../targets/target.ts";
import { TARGETS } from "../targets/mod.ts";

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

/** What is known of when a newer key arrived: in v0.87.4's schema, or only after it. */
export const AFTER_V0_87_4 = "after v0.87.4";

/**
 * For each top-level key gh-aw added after v0.76.1, the release of gh-aw whose schema is known to have it:
 * `v0.87.4` (it arrived in v0.77–v0.87.4: the v0.87.4 locks of the corpus carry it, e.g. AWF's
 * `maxAiCredits`, `maxCacheMisses`, `--exclude-env`, the topology settings) or {@link AFTER_V0_87_4}
 * (first seen in {@link NEWER_SCHEMA_SOURCE}, absent from v0.87.4's locks and defaults). Release data, one
 * entry per key of {@link NEWER_REFUSED_KEYS}.
 */
export const NEWER_KEY_RELEASES: Readonly<Record<string, string>> = {
  "max-ai-credits": "v0.87.4",
  "max-daily-ai-credits": "v0.87.4",
  "model": "v0.87.4",
  "excluded-env": "v0.87.4",
  "runner": "v0.87.4",
  "max-turn-cache-misses": "v0.87.4",
  "intent": AFTER_V0_87_4,
  "threat-detection-suppress": AFTER_V0_87_4,
  "ambient-folders": AFTER_V0_87_4,
  "max-tool-denials": AFTER_V0_87_4,
  "max-tool-calls": AFTER_V0_87_4,
  "graders": AFTER_V0_87_4,
  "evals": AFTER_V0_87_4,
};

const parseVersion = (v: string) => v.slice(1).split(".").map(Number);
const releaseAfter = (a: string, b: string) => {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/**
 * Why a target refuses each newer top-level key it does not compile, as the text that follows the quoted key
 * in the `newer-key-unsupported` error: the release the key arrived in (after the target's, or in it but
 * not yet compiled by awc for it) and what the target's runtime lacks. Keys the target compiles
 * (`GhAwTarget.frontmatterKeys`) are absent.
 */
export function newerKeyRefusals(target: GhAwTarget): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, reason] of Object.entries(NEWER_REFUSED_KEYS)) {
    if (target.frontmatterKeys.includes(key)) continue;
    const release = NEWER_KEY_RELEASES[key] ?? AFTER_V0_87_4;
    const uncompiled = target.uncompiledKeys[key];
    if (uncompiled !== undefined) {
      out[key] = `is in gh-aw ${target.version}'s frontmatter, but awc does not compile it for that target ` +
        `yet: ${uncompiled}`;
      continue;
    }
    const later = release === AFTER_V0_87_4 ? undefined : release;
    if (target.version === "v0.76.1") {
      // The first supported target that compiles it, if any, is the way out.
      const by = TARGETS.find((t) => t.frontmatterKeys.includes(key));
      out[key] =
        `was added to gh-aw's frontmatter after v0.76 (${
          later ? `gh-aw ${later} has it` : `${AFTER_V0_87_4}: first seen in ${NEWER_SCHEMA_SOURCE}`
        }); awc cannot honour it with the runtime it pins: ${reason}` +
        (by
          ? ` — or compile for gh-aw ${by.version} (\`--gh-aw-version ${by.version}\`), which supports it`
          : "");
      continue;
    }
    out[key] = later && releaseAfter(later, target.version) <= 0
      ? `is in gh-aw ${target.version}'s frontmatter, but awc does not compile it for that target yet`
      : `was added to gh-aw's frontmatter ${AFTER_V0_87_4} (first seen in ${NEWER_SCHEMA_SOURCE}); ` +
        `gh-aw ${target.version} does not know it, so its runtime cannot honour it`;
  }
  return out;
}
