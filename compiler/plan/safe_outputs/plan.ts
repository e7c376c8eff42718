/**
 * Safe outputs: the per-type handler configuration (snake_case JSON, as the pinned gh-aw runtime reads
 * it), the permission union of the enabled types, the agent's tool list, and the threat-detection switch.
 * Sanitization (secret redaction, URL/domain filtering, XML escaping, limits, control characters,
 * reference escaping, HTTPS enforcement) runs in the runtime; we configure it here (allowed domains,
 * allowed references, limits).
 */
import type { Diagnostic } from "../../api.ts";
import { diagnostic } from "../../source/diagnostics.ts";

/** Global (non-type) keys of `safe-outputs:`. */
const GLOBAL_KEYS = new Set([
  "activation-comments",
  "allowed-domains",
  "allowed-github-references",
  "concurrency-group",
  "env",
  "environment",
  "failure-issue-repo",
  "footer",
  "github-app",
  "github-token",
  "group-reports",
  "id-token",
  "jobs",
  "max-bot-mentions",
  "max-patch-files",
  "max-patch-size",
  "mentions",
  "messages",
  "needs",
  "report-failure-as-issue",
  "runs-on",
  "scripts",
  "staged",
  "steps",
  "threat-detection",
  "actions",
]);

/** Permissions each safe-output type needs in the `safe_outputs` job. */
const PERMISSIONS: Record<string, Record<string, string>> = {
  "create-issue": { contents: "read", issues: "write" },
  "close-issue": { contents: "read", issues: "write" },
  "update-issue": { contents: "read", issues: "write" },
  "assign-milestone": { contents: "read", issues: "write" },
  "assign-to-agent": { contents: "read", issues: "write" },
  "assign-to-user": { contents: "read", issues: "write" },
  "unassign-from-user": { contents: "read", issues: "write" },
  "link-sub-issue": { contents: "read", issues: "write" },
  "set-issue-type": { contents: "read", issues: "write" },
  "set-issue-field": { contents: "read", issues: "write" },
  "create-agent-session": { contents: "read", issues: "write" },
  "comment-memory": { contents: "read", issues: "write" },
  "create-discussion": { contents: "read", discussions: "write", issues: "write" },
  "update-discussion": { contents: "read", discussions: "write" },
  "close-discussion": { contents: "read", discussions: "write" },
  "hide-comment": { contents: "read", discussions: "write", issues: "write", "pull-requests": "write" },
  "add-comment": { contents: "read", discussions: "write", issues: "write", "pull-requests": "write" },
  "add-labels": { contents: "read", issues: "write", "pull-requests": "write" },
  "remove-labels": { contents: "read", issues: "write", "pull-requests": "write" },
  "add-reviewer": { contents: "read", "pull-requests": "write" },
  "close-pull-request": { contents: "read", "pull-requests": "write" },
  "mark-pull-request-as-ready-for-review": { contents: "read", "pull-requests": "write" },
  "create-pull-request-review-comment": { contents: "read", "pull-requests": "write" },
  "reply-to-pull-request-review-comment": { contents: "read", "pull-requests": "write" },
  "resolve-pull-request-review-thread": { contents: "read", "pull-requests": "write" },
  "submit-pull-request-review": { contents: "read", "pull-requests": "write" },
  "create-pull-request": { contents: "write", issues: "write", "pull-requests": "write" },
  "push-to-pull-request-branch": { contents: "write", "pull-requests": "write" },
  "update-pull-request": { contents: "read", "pull-requests": "write" },
  "merge-pull-request": { contents: "write", "pull-requests": "write" },
  "create-code-scanning-alert": { contents: "read", "security-events": "write" },
  "autofix-code-scanning-alert": { actions: "read", contents: "read", "security-events": "write" },
  "create-check-run": { checks: "write", contents: "read" },
  "update-release": { contents: "write" },
  "upload-asset": { contents: "read" },
  "dispatch-workflow": { actions: "write" },
  "create-project": { contents: "read", issues: "read" },
  "update-project": { contents: "read", issues: "read" },
  "create-project-status-update": { contents: "read", issues: "read" },
};

/** Types that do not change the permission union or tool list (always available). */
const ALWAYS = ["noop", "missing-tool", "missing-data", "report-incomplete"];

/** The planned safe outputs of a workflow. */
export interface SafeOutputsPlan {
  /** Whether `safe-outputs:` was configured (else create-issue was enabled automatically). */
  configured: boolean;
  /** Whether create-issue was enabled automatically (no safe-output type other than the reporting ones). */
  autoCreateIssue?: boolean;
  /** Enabled types (kebab-case) in name order. */
  types: string[];
  /** Handler config (snake_case), keys sorted. */
  handlerConfig: Record<string, Record<string, unknown>>;
  permissions: Record<string, string>;
  /** Tool names offered to the agent. */
  tools: string[];
  threatDetection: boolean;
  /** Whether a no-op run files an issue (`safe-outputs.noop.report-as-issue`, default true). */
  noopReportAsIssue: boolean;
  /** Threat detection not switched off (even when, with `engine: false`, no job is left to run it). */
  threatDetectionConfigured: boolean;
  staged: boolean;
  needs: string[];
  allowedReferences?: string[];
  allowedDomains?: string[];
  raw: Record<string, unknown>;
}

function snake(k: string): string {
  return k.replace(/-/g, "_");
}

/** Converts `1d`, `2w`, `12h`, or a number of days into hours. */
export function expiresHours(v: unknown): unknown {
  if (typeof v === "number") return v * 24;
  if (typeof v !== "string") return v;
  const m = /^(\d+)\s*([hdwm])$/.exec(v.trim());
  if (!m) return v;
  const n = +m[1];
  return m[2] === "h" ? n : m[2] === "d" ? n * 24 : m[2] === "w" ? n * 168 : n * 720;
}

/** Files a code-pushing safe output may not touch unless allowed (engine instruction files appended). */
const PROTECTED_FILES = [
  "package.json",
  "bun.lockb",
  "bunfig.toml",
  "deno.json",
  "deno.jsonc",
  "deno.lock",
  "global.json",
  "NuGet.Config",
  "Directory.Packages.props",
  "mix.exs",
  "mix.lock",
  "go.mod",
  "go.sum",
  "stack.yaml",
  "stack.yaml.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "gradle.properties",
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "npm-shrinkwrap.json",
  "requirements.txt",
  "Pipfile",
  "Pipfile.lock",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "Gemfile",
  "Gemfile.lock",
  "uv.lock",
  "CODEOWNERS",
  "DESIGN.md",
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "SECURITY.md",
  "CODE_OF_CONDUCT.md",
];

/** Types whose handler keys stay kebab-case (their runtime reads them so). */
const KEBAB_TYPES = ["upload-asset", "upload-artifact"];
/** Types without an implicit `max: 1`. */
const NO_DEFAULT_MAX = [
  "add-labels",
  "create-code-scanning-alert",
  "push-to-pull-request-branch",
  "remove-labels",
  "set-issue-type",
  "upload-artifact",
  "upload-asset",
];

/** Implicit `max` of types whose default is not 1. */
const DEFAULT_MAX: Record<string, number> = { "hide-comment": 5 };

function typeConfig(type: string, raw: unknown, engineId: string): Record<string, unknown> {
  const o = raw && typeof raw === "object" ? raw as Record<string, unknown> : {};
  const out: Record<string, unknown> = {};
  const key = (
    k: string,
  ) => (KEBAB_TYPES.includes(type) || k === "target-repo" || k === "custom-agent" ? k : snake(k));
  for (const [k, v] of Object.entries(o)) {
    if (k === "github-token" || k === "github-app" || k === "protected-files") continue;
    if (k === "expires" && v === false) continue;
    if (Array.isArray(v) && v.length === 0 && k !== "allowed") continue;
    out[key(k)] = k === "expires" ? expiresHours(v) : v;
  }
  if (out.max === undefined && !NO_DEFAULT_MAX.includes(type)) out.max = DEFAULT_MAX[type] ?? 1;
  if (type === "create-discussion" && out.fallback_to_issue === undefined) out.fallback_to_issue = true;
  // Closing older discussions without an expiry expires the new one after a week.
  if (type === "create-discussion" && out.close_older_discussions === true && o.expires === undefined) {
    out.expires = 168;
  }
  if (type === "submit-pull-request-review" && typeof out.footer === "boolean") {
    out.footer = out.footer ? "always" : "none";
  }
  if (type === "close-discussion") delete out.required_category;
  if (type === "push-to-pull-request-branch") out.if_no_changes ??= "warn";
  if (type === "create-pull-request-review-comment") out.side ??= "RIGHT";
  for (const k of ["reviewers", "assignees", "labels"]) if (typeof out[k] === "string") out[k] = [out[k]];
  if (type === "create-discussion" && typeof out.category === "string") {
    out.category = out.category.toLowerCase();
  }
  // create-pull-request: `fallback_as_issue` is left to the runtime default (true); an explicit false passes through.
  if (type === "update-issue" || type === "update-pull-request") {
    // `title:`/`body:`/`status:` switches become allow_* flags (a bare key or true allows it).
    for (const f of ["title", "body", "status", "labels", "assignees", "milestone"]) {
      if (f in o) {
        const v = o[f];
        out[`allow_${f}`] = v === null || v === true || (v !== false && v !== undefined);
        delete out[f];
      }
    }
    if (type === "update-issue" && out.allow_body === undefined) out.allow_body = true;
    if (type === "update-pull-request") {
      out.allow_body ??= true;
      out.allow_title ??= true;
      out.update_branch ??= false;
      if (out.operation !== undefined) {
        out.default_operation = out.operation;
        delete out.operation;
      }
    }
  }
  if (type === "add-comment") {
    if (out.discussions === undefined) out.discussions = false;
    if (out.issues === undefined) delete out.issues;
  }
  if (type === "upload-asset") {
    out.branch ??= "assets/${{ github.workflow }}";
    out["max-size"] ??= 10240;
    out["allowed-exts"] ??= [".png", ".jpg", ".jpeg", ".svg"];
  }
  if (type === "upload-artifact") {
    const defaults = out.defaults && typeof out.defaults === "object"
      ? out.defaults as Record<string, unknown>
      : {};
    if (defaults["if-no-files"] !== undefined) out["default-if-no-files"] = defaults["if-no-files"];
    delete out.defaults;
    out["max-size-bytes"] ??= 104857600;
    out["max-uploads"] ??= 1;
    out["retention-days"] ??= 7;
  }
  if (type === "create-pull-request" || type === "push-to-pull-request-branch") {
    const pf = o["protected-files"];
    const pfo = pf && typeof pf === "object" ? pf as Record<string, unknown> : {};
    const exclude = Array.isArray(pfo.exclude) ? pfo.exclude.map(String) : [];
    const tail = engineId === "claude" ? ["CLAUDE.md", "AGENTS.md"] : ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
    if (type === "create-pull-request") out.max_patch_files ??= 100;
    out.max_patch_size ??= 1024;
    out.protect_top_level_dot_folders ??= true;
    out.protected_files = [...PROTECTED_FILES, ...tail].filter((f) => !exclude.includes(f));
    const dotFolders = exclude.filter((e) => e.startsWith(".") && e.endsWith("/"));
    if (dotFolders.length) out.protected_dot_folder_excludes = dotFolders;
    const policy = typeof pf === "string" ? pf : typeof pfo.policy === "string" ? pfo.policy : undefined;
    if (policy) out.protected_files_policy = policy;
    else if (type === "create-pull-request") out.protected_files_policy = "request_review";
  }
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}

/** The order gh-aw lists safe-output tools to the agent. */
const TOOL_ORDER = [
  "add_comment",
  "call_workflow",
  "update_release",
  "assign_to_user",
  "create_issue",
  "close_discussion",
  "close_issue",
  "update_issue",
  "create_discussion",
  "update_discussion",
  "assign_to_agent",
  "create_agent_session",
  "create_pull_request",
  "close_pull_request",
  "update_pull_request",
  "create_pull_request_review_comment",
  "submit_pull_request_review",
  "reply_to_pull_request_review_comment",
  "resolve_pull_request_review_thread",
  "add_labels",
  "add_reviewer",
  "remove_labels",
  "upload_asset",
  "upload_artifact",
  "push_to_pull_request_branch",
  "unassign_from_user",
  "assign_milestone",
  "update_project",
  "create_project",
  "create_code_scanning_alert",
  "autofix_code_scanning_alert",
  "link_sub_issue",
  "hide_comment",
  "create_project_status_update",
  "create_check_run",
  "set_issue_field",
  "set_issue_type",
  "comment_memory",
  "merge_pull_request",
  "mark_pull_request_as_ready_for_review",
  "dispatch_workflow",
  "dispatch_repository",
];

function toolList(
  types: string[],
  cfg: Record<string, Record<string, unknown>>,
  configured: boolean,
  effective: Record<string, unknown>,
): string[] {
  const names = types.map(snake).filter((t) =>
    !["missing_data", "missing_tool", "noop", "report_incomplete", "upload_artifact"].includes(t)
  );
  names.sort((a, b) => (TOOL_ORDER.indexOf(a) + 1 || 999) - (TOOL_ORDER.indexOf(b) + 1 || 999));
  const out = names.map((t) => {
    const max = cfg[t]?.max;
    return typeof max === "number" && max > 1 ? `${t}(max:${max})` : t;
  });
  if (!configured) return out;
  const jobs = effective.jobs && typeof effective.jobs === "object"
    ? Object.keys(effective.jobs).map(snake).sort()
    : [];
  return [...out, "missing_tool", "missing_data", "noop", ...jobs];
}

/** Plans safe outputs from the merged `safe-outputs:` map. */
export function planSafeOutputs(
  raw: Record<string, unknown> | undefined,
  workflowId: string,
  file: string,
  diags: Diagnostic[],
  engineId = "copilot",
): SafeOutputsPlan {
  const configuredTypes = raw
    ? Object.keys(raw).filter((k) => !GLOBAL_KEYS.has(k) && !ALWAYS.includes(k))
    : [];
  const hasJobs = !!raw && !!raw.jobs && typeof raw.jobs === "object" && Object.keys(raw.jobs).length > 0;
  // Only built-in reporting types (noop, missing-tool…) still get the automatic create-issue, but count as
  // configured safe outputs (reporting tools, detection, conclusion steps), as gh-aw does.
  const autoCreateIssue = configuredTypes.length === 0 && !hasJobs;
  const configured = raw !== undefined &&
    (configuredTypes.length > 0 || hasJobs || Object.keys(raw).some((k) => ALWAYS.includes(k)));
  const effective: Record<string, unknown> = !autoCreateIssue
    ? raw!
    : { ...(raw ?? {}), "create-issue": { max: 1, labels: [workflowId], "title-prefix": `[${workflowId}]` } };
  const types = Object.keys(effective).filter((k) => !GLOBAL_KEYS.has(k)).sort();
  const noopConfig = effective.noop;
  // The spec's `noop.report-as-issue: false` stops the no-op issue (it used to be written as "true" always).
  const noopReportAsIssue = !(noopConfig && typeof noopConfig === "object" &&
    (noopConfig as Record<string, unknown>)["report-as-issue"] === false);
  const handlerConfig: Record<string, Record<string, unknown>> = {};
  const permissions: Record<string, string> = {};
  const staged = effective.staged === true;
  for (const t of types) {
    if (ALWAYS.includes(t)) continue;
    handlerConfig[snake(t)] = typeConfig(t, effective[t], engineId);
    const p = PERMISSIONS[t];
    if (!p) {
      if (!["upload-artifact", "call-workflow", "dispatch_repository", "create-agent-task"].includes(t)) {
        diags.push(
          diagnostic(
            "unknown-safe-output",
            { file, line: 1, column: 1 },
            `safe output "${t}" has no permission mapping`,
          ),
        );
      }
      continue;
    }
    if (staged) continue;
    for (const [scope, level] of Object.entries(p)) {
      if (permissions[scope] !== "write") permissions[scope] = level;
    }
  }
  const mentions = effective.mentions;
  if (mentions === false) handlerConfig.mentions = { enabled: false };
  else if (mentions && typeof mentions === "object") {
    const m: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(mentions)) {
      m[snake(k)] = k === "allowed" && Array.isArray(v) ? v.map((x) => String(x).replace(/^@/, "")) : v;
    }
    handlerConfig.mentions = m;
  }
  if (configured) {
    handlerConfig.create_report_incomplete_issue = {};
    handlerConfig.missing_data = {};
    handlerConfig.missing_tool = {};
    handlerConfig.noop = { max: 1, "report-as-issue": String(noopReportAsIssue) };
    handlerConfig.report_incomplete = {};
  }
  const sortedConfig: Record<string, Record<string, unknown>> = {};
  for (const k of Object.keys(handlerConfig).sort()) sortedConfig[k] = handlerConfig[k];
  const sortedPerms: Record<string, string> = {};
  for (const k of Object.keys(permissions).sort()) sortedPerms[k] = permissions[k];
  const td = effective["threat-detection"];
  // `engine: false` turns the AI review off; with no custom `steps` of its own nothing is left to run.
  const tdObj = td && typeof td === "object" ? td as Record<string, unknown> : undefined;
  const threatDetectionConfigured = configured && td !== false && tdObj?.enabled !== false;
  const threatDetection = threatDetectionConfigured &&
    !(tdObj?.engine === false && !(Array.isArray(tdObj.steps) && tdObj.steps.length > 0));
  const refs = effective["allowed-github-references"];
  const domains = effective["allowed-domains"];
  return {
    configured,
    autoCreateIssue,
    types,
    handlerConfig: sortedConfig,
    permissions: sortedPerms,
    tools: toolList(types, handlerConfig, configured, effective),
    threatDetection,
    noopReportAsIssue,
    threatDetectionConfigured,
    staged,
    needs: Array.isArray(effective.needs) ? effective.needs.map(String) : [],
    allowedReferences: Array.isArray(refs) ? refs.map(String) : undefined,
    allowedDomains: Array.isArray(domains) ? domains.map(String) : undefined,
    raw: effective,
  };
}
