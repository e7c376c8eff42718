/** `safe-outputs.link-sub-issue`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, REPO, req } from "./fields.ts";
import { maxSentence, q, str } from "./sentences.ts";

/** The `link-sub-issue` safe output. */
export const linkSubIssue: SafeOutputType = {
  key: "link-sub-issue",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "sub-issue link(s) can be created"),
    ...(str(c, "parent-title-prefix")
      ? [`The parent issue title must start with ${q(str(c, "parent-title-prefix"))}.`]
      : []),
    ...(str(c, "sub-title-prefix")
      ? [`The sub-issue title must start with ${q(str(c, "sub-title-prefix"))}.`]
      : []),
  ],
  validation: {
    defaultMax: 5,
    fields: {
      parent_issue_number: { ...req, ...ISSUE_OR_TEMP },
      repo: REPO,
      sub_issue_number: { ...req, ...ISSUE_OR_TEMP },
    },
    customValidation: "parentAndSubDifferent",
  },
};
