/**
 * Per-type field validation tables for safe-output items, as the agent job hands them to the runtime
 * (`GH_AW_VALIDATION_JSON` of "Generate Safe Outputs Tools"): each enabled type's default item limit, its
 * fields (required, type, sanitize, lengths, number kinds, enums, item rules, patterns) and an optional
 * cross-field rule. The values are the gh-aw v0.76 runtime contract, learned from the corpus locks.
 */

/** Validation rules of one field. Keys are written in {@link FIELD_KEY_ORDER}. */
export interface FieldRule {
  required?: true;
  type?: "string" | "array" | "boolean" | "object" | "[]string";
  sanitize?: true;
  maxLength?: number;
  minLength?: number;
  positiveInteger?: true;
  optionalPositiveInteger?: true;
  issueOrPRNumber?: true;
  issueNumberOrTemporaryId?: true;
  enum?: string[];
  itemType?: "string";
  itemSanitize?: true;
  itemMaxLength?: number;
  pattern?: string;
  patternError?: string;
}

/** Validation of one safe-output type. */
export interface TypeRule {
  defaultMax: number;
  fields: Record<string, FieldRule>;
  /** A cross-field rule the runtime knows by name (`requiresOneOf:a,b`, `parentAndSubDifferent`, …). */
  customValidation?: string;
}

/** The order in which the runtime contract lists a field's rule keys. */
export const FIELD_KEY_ORDER: readonly (keyof FieldRule)[] = [
  "required",
  "type",
  "sanitize",
  "maxLength",
  "minLength",
  "positiveInteger",
  "optionalPositiveInteger",
  "issueOrPRNumber",
  "issueNumberOrTemporaryId",
  "enum",
  "itemType",
  "itemSanitize",
  "itemMaxLength",
  "pattern",
  "patternError",
];

const BODY_MAX = 65000;
const req = { required: true } as const;
/** Sanitized text up to `max` characters. */
const text = (max: number, extra: FieldRule = {}): FieldRule => ({
  type: "string",
  sanitize: true,
  maxLength: max,
  ...extra,
});
/** Unsanitized string, optionally bounded. */
const str = (max?: number, extra: FieldRule = {}): FieldRule => ({
  type: "string",
  ...(max ? { maxLength: max } : {}),
  ...extra,
});
/** A list of sanitized strings, each up to `max` characters. */
const list = (max: number, extra: FieldRule = {}): FieldRule => ({
  type: "array",
  itemType: "string",
  itemSanitize: true,
  itemMaxLength: max,
  ...extra,
});
const oneOf = (values: string[], extra: FieldRule = {}): FieldRule => ({
  type: "string",
  enum: values,
  ...extra,
});
const pattern = (p: string, error: string): FieldRule => ({ pattern: p, patternError: error });
const REPO = str(256);
const BODY = text(BODY_MAX, req);
const OPT_BODY = text(BODY_MAX);
const ISSUE_OR_PR: FieldRule = { issueOrPRNumber: true };
const ISSUE_OR_TEMP: FieldRule = { issueNumberOrTemporaryId: true };
const OPT_POSITIVE: FieldRule = { optionalPositiveInteger: true };
const POSITIVE: FieldRule = { required: true, positiveInteger: true };
const ID_PATTERN = pattern(
  "^[a-zA-Z0-9_-]+$",
  "must contain only alphanumeric characters, hyphens, and underscores",
);
const PROJECT_URL = text(512, {
  required: true,
  ...pattern(
    "^https://[^/]+/(orgs|users)/[^/]+/projects/\\d+",
    "must be a full GitHub project URL (e.g., https://github.com/orgs/myorg/projects/42)",
  ),
});
const DATE = str(undefined, pattern("^\\d{4}-\\d{2}-\\d{2}$", "must be in YYYY-MM-DD format"));
const REPLACE_OPS = ["replace", "append", "prepend"];

/** Validation per safe-output type (snake_case). Types without an entry are not validated by field. */
export const VALIDATION: Record<string, TypeRule> = {
  add_comment: {
    defaultMax: 1,
    fields: { body: BODY, item_number: ISSUE_OR_PR, reply_to_id: REPO, repo: REPO },
  },
  add_labels: { defaultMax: 5, fields: { item_number: ISSUE_OR_TEMP, labels: list(128, req), repo: REPO } },
  add_reviewer: {
    defaultMax: 3,
    fields: { pull_request_number: ISSUE_OR_PR, repo: REPO, reviewers: list(39), team_reviewers: list(100) },
    customValidation: "requiresOneOf:reviewers,team_reviewers",
  },
  assign_milestone: {
    defaultMax: 1,
    fields: {
      issue_number: ISSUE_OR_TEMP,
      milestone_number: OPT_POSITIVE,
      milestone_title: text(128),
      repo: REPO,
    },
    customValidation: "requiresOneOf:milestone_number,milestone_title",
  },
  assign_to_agent: {
    defaultMax: 1,
    fields: {
      agent: text(128),
      issue_number: ISSUE_OR_TEMP,
      pull_number: OPT_POSITIVE,
      pull_request_repo: REPO,
      repo: REPO,
    },
    customValidation: "requiresOneOf:issue_number,pull_number",
  },
  assign_to_user: {
    defaultMax: 1,
    fields: {
      assignee: text(39),
      assignees: { ...text(39), type: "[]string" },
      issue_number: ISSUE_OR_PR,
      repo: REPO,
    },
  },
  close_discussion: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      discussion_number: OPT_POSITIVE,
      reason: oneOf(["RESOLVED", "DUPLICATE", "OUTDATED", "ANSWERED"]),
      repo: REPO,
    },
  },
  close_issue: { defaultMax: 1, fields: { body: OPT_BODY, issue_number: OPT_POSITIVE, repo: REPO } },
  close_pull_request: {
    defaultMax: 1,
    fields: { body: BODY, pull_request_number: OPT_POSITIVE, repo: REPO },
  },
  comment_memory: {
    defaultMax: 1,
    fields: { body: BODY, item_number: ISSUE_OR_PR, memory_id: text(128, ID_PATTERN), repo: REPO },
  },
  create_agent_session: { defaultMax: 1, fields: { body: BODY, repo: REPO } },
  create_code_scanning_alert: {
    defaultMax: 40,
    fields: {
      column: OPT_POSITIVE,
      file: text(512, req),
      line: POSITIVE,
      message: text(2048, req),
      ruleIdSuffix: text(128, ID_PATTERN),
      severity: oneOf(["error", "warning", "info", "note"], req),
    },
  },
  create_discussion: {
    defaultMax: 1,
    fields: {
      body: text(BODY_MAX, { ...req, minLength: 64 }),
      category: text(128),
      repo: REPO,
      title: text(128, req),
    },
  },
  create_issue: {
    defaultMax: 1,
    fields: {
      body: BODY,
      fields: { type: "array" },
      labels: list(128),
      parent: ISSUE_OR_PR,
      repo: REPO,
      temporary_id: str(),
      title: text(128, req),
    },
  },
  create_project: {
    defaultMax: 1,
    fields: { item_url: text(512), owner: text(128), owner_type: oneOf(["org", "user"]), title: text(256) },
  },
  create_project_status_update: {
    defaultMax: 10,
    fields: {
      body: text(65536, req),
      project: PROJECT_URL,
      start_date: DATE,
      status: oneOf(["INACTIVE", "ON_TRACK", "AT_RISK", "OFF_TRACK", "COMPLETE"]),
      target_date: DATE,
    },
  },
  create_pull_request: {
    defaultMax: 1,
    fields: {
      base: text(128),
      body: BODY,
      branch: text(256, req),
      draft: { type: "boolean" },
      labels: list(128),
      repo: REPO,
      title: text(128, req),
    },
  },
  create_pull_request_review_comment: {
    defaultMax: 1,
    fields: {
      body: BODY,
      line: POSITIVE,
      path: str(undefined, req),
      pull_request_number: OPT_POSITIVE,
      repo: REPO,
      side: oneOf(["LEFT", "RIGHT"]),
      start_line: OPT_POSITIVE,
    },
    customValidation: "startLineLessOrEqualLine",
  },
  hide_comment: {
    defaultMax: 5,
    fields: {
      comment_id: str(256, req),
      reason: oneOf(["SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "RESOLVED", "LOW_QUALITY"]),
      repo: REPO,
    },
  },
  link_sub_issue: {
    defaultMax: 5,
    fields: {
      parent_issue_number: { ...req, ...ISSUE_OR_TEMP },
      repo: REPO,
      sub_issue_number: { ...req, ...ISSUE_OR_TEMP },
    },
    customValidation: "parentAndSubDifferent",
  },
  merge_pull_request: {
    defaultMax: 1,
    fields: {
      commit_message: OPT_BODY,
      commit_title: text(256),
      merge_method: oneOf(["merge", "squash", "rebase"]),
      pull_request_number: ISSUE_OR_PR,
      repo: REPO,
    },
  },
  missing_data: {
    defaultMax: 20,
    fields: { alternatives: text(256), context: text(256), data_type: text(128), reason: text(256) },
  },
  missing_tool: {
    defaultMax: 20,
    fields: { alternatives: text(512), reason: text(256, req), tool: text(128) },
  },
  noop: { defaultMax: 1, fields: { message: text(BODY_MAX, req) } },
  push_to_pull_request_branch: {
    defaultMax: 1,
    fields: { branch: text(256, req), message: text(BODY_MAX, req), pull_request_number: ISSUE_OR_PR },
  },
  remove_labels: {
    defaultMax: 5,
    fields: { item_number: ISSUE_OR_TEMP, labels: list(128, req), repo: REPO },
  },
  reply_to_pull_request_review_comment: {
    defaultMax: 10,
    fields: { body: BODY, comment_id: POSITIVE, pull_request_number: OPT_POSITIVE, repo: REPO },
  },
  report_incomplete: { defaultMax: 5, fields: { details: OPT_BODY, reason: text(1024, req) } },
  resolve_pull_request_review_thread: { defaultMax: 10, fields: { thread_id: str(undefined, req) } },
  set_issue_field: {
    defaultMax: 5,
    fields: {
      field_name: text(128),
      field_node_id: REPO,
      issue_number: ISSUE_OR_PR,
      repo: REPO,
      value: text(256, req),
    },
    customValidation: "requiresOneOf:field_name,field_node_id",
  },
  set_issue_type: {
    defaultMax: 5,
    fields: { issue_number: ISSUE_OR_PR, issue_type: text(128, req), repo: REPO },
  },
  submit_pull_request_review: {
    defaultMax: 1,
    fields: { body: OPT_BODY, event: oneOf(["APPROVE", "REQUEST_CHANGES", "COMMENT"]) },
  },
  unassign_from_user: {
    defaultMax: 1,
    fields: { assignee: text(39), assignees: list(39), issue_number: ISSUE_OR_PR, repo: REPO },
  },
  update_discussion: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      discussion_number: ISSUE_OR_PR,
      labels: list(128),
      repo: REPO,
      title: text(128),
    },
    customValidation: "requiresOneOf:title,body,labels",
  },
  update_issue: {
    defaultMax: 1,
    fields: {
      assignees: list(39),
      body: OPT_BODY,
      issue_number: ISSUE_OR_PR,
      labels: list(128),
      milestone: OPT_POSITIVE,
      operation: oneOf([...REPLACE_OPS, "replace-island"]),
      repo: REPO,
      status: oneOf(["open", "closed"]),
      title: text(128),
    },
    customValidation: "requiresOneOf:status,title,body",
  },
  update_project: {
    defaultMax: 10,
    fields: {
      content_number: ISSUE_OR_TEMP,
      content_type: oneOf(["issue", "pull_request", "draft_issue"]),
      draft_body: OPT_BODY,
      draft_title: text(256),
      fields: { type: "object" },
      issue: OPT_POSITIVE,
      project: PROJECT_URL,
      pull_request: OPT_POSITIVE,
    },
  },
  update_pull_request: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      draft: { type: "boolean" },
      operation: oneOf(REPLACE_OPS),
      pull_request_number: ISSUE_OR_PR,
      repo: REPO,
      title: text(256),
      update_branch: { type: "boolean" },
    },
    customValidation: "requiresOneOf:title,body,update_branch",
  },
  update_release: {
    defaultMax: 1,
    fields: { body: BODY, operation: oneOf(REPLACE_OPS, req), tag: text(256) },
  },
  upload_asset: { defaultMax: 10, fields: { path: str(undefined, req) } },
};

/** One field's rules with keys in the runtime's order. */
function orderedField(f: FieldRule): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_KEY_ORDER) if (f[k] !== undefined) out[k] = f[k];
  return out;
}

/**
 * The validation JSON for the enabled types (snake_case names; unknown ones are skipped): types and
 * fields in name order, two-space indentation, as the runtime's `validation.json`.
 */
export function validationJson(enabledTypes: Iterable<string>): string {
  const out: Record<string, unknown> = {};
  for (const t of [...new Set(enabledTypes)].sort()) {
    const rule = VALIDATION[t];
    if (!rule) continue;
    const fields: Record<string, unknown> = {};
    for (const name of Object.keys(rule.fields).sort()) fields[name] = orderedField(rule.fields[name]);
    out[t] = {
      defaultMax: rule.defaultMax,
      fields,
      ...(rule.customValidation ? { customValidation: rule.customValidation } : {}),
    };
  }
  return goJson(out, 2);
}

/**
 * JSON as Go's encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped; with `indent`, nested
 * values on their own lines (empty objects and arrays stay `{}` / `[]`).
 */
export function goJson(value: unknown, indent = 0): string {
  return JSON.stringify(value, null, indent || undefined).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
