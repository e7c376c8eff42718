/** `safe-outputs.assign-to-user`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, REPO, text } from "./fields.ts";

/** The `assign-to-user` safe output. */
export const assignToUser: SafeOutputType = {
  key: "assign-to-user",
  permissions: { contents: "read", issues: "write" },
  validation: {
    defaultMax: 1,
    fields: {
      assignee: text(39),
      assignees: { ...text(39), type: "[]string" },
      issue_number: ISSUE_OR_PR,
      repo: REPO,
    },
  },
  jobOutputs: () => ({ assign_to_user_assigned: "assigned" }),
};
