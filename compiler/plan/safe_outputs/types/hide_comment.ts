/** `safe-outputs.hide-comment`. */
import type { SafeOutputType } from "./contract.ts";
import { oneOf, rawString, REPO, req } from "./fields.ts";

/** The `hide-comment` safe output. */
export const hideComment: SafeOutputType = {
  key: "hide-comment",
  permissions: { contents: "read", discussions: "write", issues: "write", "pull-requests": "write" },
  implicitMax: 5,
  validation: {
    defaultMax: 5,
    fields: {
      comment_id: rawString(256, req),
      reason: oneOf(["SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "RESOLVED", "LOW_QUALITY"]),
      repo: REPO,
    },
  },
};
