/** `safe-outputs.mark-pull-request-as-ready-for-review`. */
import type { SafeOutputType } from "./contract.ts";
import { inRepo, maxSentence } from "./sentences.ts";

/** The `mark-pull-request-as-ready-for-review` safe output. */
export const markPullRequestAsReadyForReview: SafeOutputType = {
  key: "mark-pull-request-as-ready-for-review",
  permissions: { contents: "read", "pull-requests": "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "pull request(s) can be marked as ready for review"),
    ...inRepo(c, "Pull requests will be marked as ready"),
  ],
};
