/** `safe-outputs.update-issue`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, list, oneOf, OPT_BODY, OPT_POSITIVE, REPLACE_OPS, REPO, text } from "./fields.ts";
import { allowSwitches } from "./update_switches.ts";
import { flag, maxSentence, q, str, target } from "./sentences.ts";

/** The `update-issue` safe output. */
export const updateIssue: SafeOutputType = {
  key: "update-issue",
  permissions: { contents: "read", issues: "write" },
  handler: (out, raw) => {
    allowSwitches(out, raw);
    if (out.allow_body === undefined) out.allow_body = true;
  },
  sentences: (c, m) => [
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
  validation: {
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
};
