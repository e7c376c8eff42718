/** `safe-outputs.set-issue-type`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, REPO, req, text } from "./fields.ts";

/** The `set-issue-type` safe output. */
export const setIssueType: SafeOutputType = {
  key: "set-issue-type",
  permissions: { contents: "read", issues: "write" },
  implicitMax: null,
  validation: {
    defaultMax: 5,
    fields: { issue_number: ISSUE_OR_PR, issue_type: text(128, req), repo: REPO },
  },
};
