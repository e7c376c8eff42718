/** `safe-outputs.unassign-from-user`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, list, REPO, text } from "./fields.ts";

/** The `unassign-from-user` safe output. */
export const unassignFromUser: SafeOutputType = {
  key: "unassign-from-user",
  permissions: { contents: "read", issues: "write" },
  validation: {
    defaultMax: 1,
    fields: { assignee: text(39), assignees: list(39), issue_number: ISSUE_OR_PR, repo: REPO },
  },
};
