/** `safe-outputs.comment-memory`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, ID_PATTERN, ISSUE_OR_PR, REPO, text } from "./fields.ts";

/** The `comment-memory` safe output. */
export const commentMemory: SafeOutputType = {
  key: "comment-memory",
  permissions: { contents: "read", issues: "write" },
  validation: {
    defaultMax: 1,
    fields: { body: BODY, item_number: ISSUE_OR_PR, memory_id: text(128, ID_PATTERN), repo: REPO },
  },
};
