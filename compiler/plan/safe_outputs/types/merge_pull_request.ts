/** `safe-outputs.merge-pull-request`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, oneOf, OPT_BODY, REPO, text } from "./fields.ts";

/** The `merge-pull-request` safe output. */
export const mergePullRequest: SafeOutputType = {
  key: "merge-pull-request",
  permissions: { contents: "write", "pull-requests": "write" },
  validation: {
    defaultMax: 1,
    fields: {
      commit_message: OPT_BODY,
      commit_title: text(256),
      merge_method: oneOf(["merge", "squash", "rebase"]),
      pull_request_number: ISSUE_OR_PR,
      repo: REPO,
    },
  },
};
