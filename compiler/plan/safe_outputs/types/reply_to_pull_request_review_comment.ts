/** `safe-outputs.reply-to-pull-request-review-comment`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, OPT_POSITIVE, POSITIVE, REPO } from "./fields.ts";
import { maxSentence } from "./sentences.ts";

/** The `reply-to-pull-request-review-comment` safe output. */
export const replyToPullRequestReviewComment: SafeOutputType = {
  key: "reply-to-pull-request-review-comment",
  permissions: { contents: "read", "pull-requests": "write" },
  sentences: (_c, m) => maxSentence(m, "reply/replies can be created"),
  validation: {
    defaultMax: 10,
    fields: { body: BODY, comment_id: POSITIVE, pull_request_number: OPT_POSITIVE, repo: REPO },
  },
};
