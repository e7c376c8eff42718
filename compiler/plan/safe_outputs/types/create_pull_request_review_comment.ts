/** `safe-outputs.create-pull-request-review-comment`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, oneOf, OPT_POSITIVE, POSITIVE, rawString, REPO, req } from "./fields.ts";
import { maxSentence, str } from "./sentences.ts";

/** The `create-pull-request-review-comment` safe output. */
export const createPullRequestReviewComment: SafeOutputType = {
  key: "create-pull-request-review-comment",
  permissions: { contents: "read", "pull-requests": "write" },
  handler: (out) => {
    out.side ??= "RIGHT";
  },
  sentences: (c, m) => [
    ...maxSentence(m, "review comment(s) can be created"),
    `Comments will be on the ${str(c, "side") || "RIGHT"} side of the diff.`,
  ],
  validation: {
    defaultMax: 1,
    fields: {
      body: BODY,
      line: POSITIVE,
      path: rawString(undefined, req),
      pull_request_number: OPT_POSITIVE,
      repo: REPO,
      side: oneOf(["LEFT", "RIGHT"]),
      start_line: OPT_POSITIVE,
    },
    customValidation: "startLineLessOrEqualLine",
  },
};
