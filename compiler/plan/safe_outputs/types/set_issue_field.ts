/** `safe-outputs.set-issue-field`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, REPO, req, text } from "./fields.ts";
import { allowedFields, inRepo, maxSentence } from "./sentences.ts";

/** The `set-issue-field` safe output. */
export const setIssueField: SafeOutputType = {
  key: "set-issue-field",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "issue field update(s) can be made"),
    ...allowedFields(c),
    ...inRepo(c, "Issue fields will be updated"),
  ],
  validation: {
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
};
