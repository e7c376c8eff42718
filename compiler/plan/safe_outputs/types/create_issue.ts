/** `safe-outputs.create-issue`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, ISSUE_OR_PR, list, rawString, REPO, req, text } from "./fields.ts";
import {
  allowedFields,
  allowedLabels,
  inRepo,
  labels,
  maxSentence,
  quotedList,
  strs,
  titlePrefix,
} from "./sentences.ts";

/** The `create-issue` safe output. */
export const createIssue: SafeOutputType = {
  key: "create-issue",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
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
  validation: {
    defaultMax: 1,
    fields: {
      body: BODY,
      fields: { type: "array" },
      labels: list(128),
      parent: ISSUE_OR_PR,
      repo: REPO,
      temporary_id: rawString(),
      title: text(128, req),
    },
  },
  jobOutputs: () => ({
    created_issue_number: "created_issue_number",
    created_issue_url: "created_issue_url",
  }),
};
