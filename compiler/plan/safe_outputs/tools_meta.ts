/**
 * `GH_AW_TOOLS_META_JSON` of the agent job's "Generate Safe Outputs Tools" step: per-tool constraint
 * sentences appended to the built-in tool descriptions, the `repo` parameter of tools that may target
 * other repositories, and the workflow-specific (dynamic) tools. The runtime merges it with its own tool
 * catalogue into tools.json.
 */
import type { SafeOutputsPlan } from "./plan.ts";
import { goJson } from "./validation.ts";

type Cfg = Record<string, unknown>;

/** Go's `%q` of a string (printable Unicode kept, quotes and backslashes escaped). */
const q = (s: string): string => JSON.stringify(s);
/** `["a" "b"]`: each item quoted, space-separated. */
const quotedList = (items: string[]): string => `[${items.map(q).join(" ")}]`;
/** `[a b]`: Go's `%v` of a string slice. */
const plainList = (items: string[]): string => `[${items.join(" ")}]`;

const str = (c: Cfg, k: string): string => (typeof c[k] === "string" ? c[k] as string : "");
const strs = (c: Cfg, k: string): string[] => {
  const v = c[k];
  if (typeof v === "string") return v ? [v] : [];
  return Array.isArray(v) ? v.map(String) : [];
};
const flag = (c: Cfg, k: string): boolean => k in c && c[k] !== false;

/** One sentence-builder per tool: given the raw config and the effective max, the constraint sentences. */
type Collector = (c: Cfg, max: number) => string[];

function maxSentence(max: number, what: string): string[] {
  return max > 0 ? [`Maximum ${max} ${what}.`] : [];
}
const target = (c: Cfg): string[] => (str(c, "target") ? [`Target: ${str(c, "target")}.`] : []);
const inRepo = (c: Cfg, what: string): string[] => {
  const repo = str(c, "target-repo");
  return repo ? [`${what} in repository ${q(repo)}.`] : [];
};
const allowedLabels = (c: Cfg): string[] => {
  const l = strs(c, "allowed-labels");
  return l.length ? [`Only these labels are allowed: ${quotedList(l)}.`] : [];
};
const allowedFields = (c: Cfg): string[] => {
  const f = strs(c, "allowed-fields");
  if (!f.length) return [];
  return f.includes("*")
    ? ["Any issue field is allowed."]
    : [`Only these issue fields are allowed: ${quotedList(f)}.`];
};
const titlePrefix = (c: Cfg): string[] =>
  str(c, "title-prefix") ? [`Title will be prefixed with ${q(str(c, "title-prefix"))}.`] : [];
const labels = (c: Cfg): string[] =>
  strs(c, "labels").length ? [`Labels ${quotedList(strs(c, "labels"))} will be automatically added.`] : [];
const requiredPrefix = (c: Cfg, what: string): string[] =>
  str(c, "required-title-prefix")
    ? [`Only ${what} with title prefix ${q(str(c, "required-title-prefix"))} can be closed.`]
    : [];
const project = (
  c: Cfg,
): string[] => (str(c, "project") ? [`Default project URL: ${q(str(c, "project"))}.`] : []);

const COLLECTORS: Record<string, Collector> = {
  create_issue: (c, m) => [
    ...maxSentence(m, "issue(s) can be created"),
    ...titlePrefix(c),
    ...labels(c),
    ...allowedLabels(c),
    ...allowedFields(c),
    ...(strs(c, "assignees").length
      ? [`Assignees ${quotedList(strs(c, "assignees"))} will be automatically assigned.`]
      : []),
    ...inRepo(c, "Issues will be created"),
  ],
  set_issue_field: (c, m) => [
    ...maxSentence(m, "issue field update(s) can be made"),
    ...allowedFields(c),
    ...inRepo(c, "Issue fields will be updated"),
  ],
  create_agent_session: (c, m) => [
    ...maxSentence(m, "agent task(s) can be created"),
    ...(str(c, "base") ? [`Base branch for tasks: ${q(str(c, "base"))}.`] : []),
    ...inRepo(c, "Tasks will be created"),
    ...(strs(c, "allowed-repos").length
      ? [`Sessions can target these repositories: ${plainList(strs(c, "allowed-repos"))}.`]
      : []),
  ],
  create_discussion: (c, m) => [
    ...maxSentence(m, "discussion(s) can be created"),
    ...titlePrefix(c),
    ...(str(c, "category") ? [`Discussions will be created in category ${q(str(c, "category"))}.`] : []),
    ...allowedLabels(c),
    ...inRepo(c, "Discussions will be created"),
  ],
  close_discussion: (c, m) => [
    ...maxSentence(m, "discussion(s) can be closed"),
    ...target(c),
    ...inRepo(c, "Discussions will be closed"),
    ...requiredPrefix(c, "discussions"),
  ],
  update_discussion: (c, m) => [
    ...maxSentence(m, "discussion(s) can be updated"),
    ...target(c),
    ...(c.title === true ? ["Title updates are allowed."] : []),
    ...(c.body === true ? ["Body updates are allowed."] : []),
    ...("labels" in c ? (allowedLabels(c).length ? allowedLabels(c) : ["Label updates are allowed."]) : []),
  ],
  close_issue: (
    c,
    m,
  ) => [...maxSentence(m, "issue(s) can be closed"), ...target(c), ...requiredPrefix(c, "issues")],
  close_pull_request: (c, m) => [
    ...maxSentence(m, "pull request(s) can be closed"),
    ...target(c),
    ...inRepo(c, "Pull requests will be closed"),
    ...(strs(c, "required-labels").length
      ? [`Only PRs with labels ${plainList(strs(c, "required-labels"))} can be closed.`]
      : []),
    ...requiredPrefix(c, "PRs"),
  ],
  mark_pull_request_as_ready_for_review: (c, m) => [
    ...maxSentence(m, "pull request(s) can be marked as ready for review"),
    ...inRepo(c, "Pull requests will be marked as ready"),
  ],
  add_comment: (c, m) => [
    ...maxSentence(m, "comment(s) can be added"),
    ...target(c),
    ...inRepo(c, "Comments will be added"),
    "Supports reply_to_id for discussion threading.",
  ],
  create_pull_request: (c, m) => [
    ...maxSentence(m, "pull request(s) can be created"),
    ...(str(c, "branch-prefix") ? [`Branch name will be prefixed with ${q(str(c, "branch-prefix"))}.`] : []),
    ...titlePrefix(c),
    ...labels(c),
    ...allowedLabels(c),
    ...(c.draft === true || c.draft === "true" ? ["PRs will be created as drafts."] : []),
    ...(strs(c, "reviewers").length
      ? [`Reviewers ${quotedList(strs(c, "reviewers"))} will be assigned.`]
      : []),
  ],
  create_pull_request_review_comment: (c, m) => [
    ...maxSentence(m, "review comment(s) can be created"),
    `Comments will be on the ${str(c, "side") || "RIGHT"} side of the diff.`,
  ],
  submit_pull_request_review: (c, m) => [
    ...maxSentence(m, "review(s) can be submitted"),
    ...target(c),
    ...inRepo(c, "Reviews will be submitted"),
  ],
  reply_to_pull_request_review_comment: (_c, m) => maxSentence(m, "reply/replies can be created"),
  resolve_pull_request_review_thread: (_c, m) => maxSentence(m, "review thread(s) can be resolved"),
  create_code_scanning_alert: (_c, m) => maxSentence(m, "alert(s) can be created"),
  create_check_run: (c, m) => [
    ...maxSentence(m, "check run(s) can be created"),
    ...(str(c, "name") ? [`Check run name: ${q(str(c, "name"))}.`] : []),
  ],
  add_labels: (c, m) => [
    ...maxSentence(m, "label(s) can be added"),
    ...(strs(c, "allowed").length
      ? [`Only these labels are allowed: ${quotedList(strs(c, "allowed"))}.`]
      : []),
    ...target(c),
  ],
  remove_labels: (c, m) => [
    ...maxSentence(m, "label(s) can be removed"),
    ...(strs(c, "allowed").length
      ? [`Only these labels can be removed: ${plainList(strs(c, "allowed"))}.`]
      : []),
    ...target(c),
  ],
  add_reviewer: (_c, m) => maxSentence(m, "reviewer(s) can be added"),
  update_issue: (c, m) => [
    ...maxSentence(m, "issue(s) can be updated"),
    ...target(c),
    ...(str(c, "title-prefix")
      ? [`The target issue title must start with ${q(str(c, "title-prefix"))}.`]
      : []),
    // A bare `body:` allows body updates; title and status are reported only when set to true.
    ...(c.title === true ? ["Title updates are allowed."] : []),
    ...(flag(c, "body") ? ["Body updates are allowed."] : []),
    ...(c.status === true ? ["Status updates (open/closed) are allowed."] : []),
  ],
  update_pull_request: (c, m) => [...maxSentence(m, "pull request(s) can be updated"), ...target(c)],
  push_to_pull_request_branch: (c, m) => [
    ...maxSentence(m, "push(es) can be made"),
    ...(str(c, "title-prefix")
      ? [`The target pull request title must start with ${q(str(c, "title-prefix"))}.`]
      : []),
  ],
  upload_asset: (c, m) => {
    const kb = Number(c["max-size"] ?? 10240);
    const exts = strs(c, "allowed-exts");
    return [
      ...maxSentence(m, "asset(s) can be uploaded"),
      ...(kb > 0 ? [`Maximum file size: ${kb}KB.`] : []),
      ...(exts.length ? [`Allowed file extensions: ${plainList(exts)}.`] : []),
    ];
  },
  update_release: (_c, m) => maxSentence(m, "release(s) can be updated"),
  link_sub_issue: (c, m) => [
    ...maxSentence(m, "sub-issue link(s) can be created"),
    ...(str(c, "parent-title-prefix")
      ? [`The parent issue title must start with ${q(str(c, "parent-title-prefix"))}.`]
      : []),
    ...(str(c, "sub-title-prefix")
      ? [`The sub-issue title must start with ${q(str(c, "sub-title-prefix"))}.`]
      : []),
  ],
  assign_milestone: (c, m) => [
    ...maxSentence(m, "milestone assignment(s) can be made"),
    ...inRepo(c, "Milestones will be assigned"),
  ],
  assign_to_agent: (c, m) => [
    ...maxSentence(m, "issue(s) can be assigned to agent"),
    ...(str(c, "base-branch") ? [`Pull requests will target the ${q(str(c, "base-branch"))} branch.`] : []),
    ...inRepo(c, "Issues will be assigned to agent"),
    ...(strs(c, "allowed-repos").length
      ? [`Agent assignment can target these repositories: ${plainList(strs(c, "allowed-repos"))}.`]
      : []),
  ],
  update_project: (c, m) => [...maxSentence(m, "project operation(s) can be performed"), ...project(c)],
  create_project_status_update: (
    c,
    m,
  ) => [...maxSentence(m, "status update(s) can be created"), ...project(c)],
};

const REPO_PARAM = "Target repository for this operation in 'owner/repo' format.";

/** The `repo` input of a tool that may target other repositories (allowed-repos or target-repo `*`). */
function repoParam(c: Cfg): Record<string, string> | undefined {
  const targetRepo = str(c, "target-repo");
  if (strs(c, "allowed-repos").length === 0 && targetRepo !== "*") return undefined;
  const description = targetRepo === "*"
    ? `${REPO_PARAM} Any repository can be targeted.`
    : targetRepo
    ? `${REPO_PARAM} Default is ${q(targetRepo)}. Must be the target-repo or in the allowed-repos list.`
    : `${REPO_PARAM} Must be the target-repo or in the allowed-repos list.`;
  return { description, type: "string" };
}

/** The raw (kebab-case) config of a type, `{}` for a bare key. */
function rawConfig(so: SafeOutputsPlan, snakeType: string): Cfg {
  const v = so.raw[snakeType.replace(/_/g, "-")] ?? so.raw[snakeType];
  return v && typeof v === "object" && !Array.isArray(v) ? v as Cfg : {};
}

/** Handler-config values that the descriptions show normalised. */
function normalised(h: Cfg | undefined): Cfg {
  return h && typeof h.category === "string" ? { category: h.category } : {};
}

/** Description suffixes and repo parameters of the enabled tools, plus the dynamic tools, as Go would indent them. */
export function toolsMetaJson(so: SafeOutputsPlan, dynamicTools: Record<string, unknown>[] = []): string {
  const suffixes: Record<string, string> = {};
  const repoParams: Record<string, unknown> = {};
  for (const t of Object.keys(so.handlerConfig).sort()) {
    // Raw settings, with the handler's normalised values where it has them (e.g. lower-case category).
    const c = { ...rawConfig(so, t), ...normalised(so.handlerConfig[t]) };
    const max = so.handlerConfig[t]?.max;
    const sentences = COLLECTORS[t]?.(c, typeof max === "number" ? max : 0) ?? [];
    if (sentences.length) suffixes[t] = ` CONSTRAINTS: ${sentences.join(" ")}`;
    const rp = COLLECTORS[t] ? repoParam(c) : undefined;
    if (rp) repoParams[t] = rp;
  }
  return goJson({ description_suffixes: suffixes, repo_params: repoParams, dynamic_tools: dynamicTools }, 2);
}
