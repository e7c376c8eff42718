/** `safe-outputs.submit-pull-request-review`. */
import type { SafeOutputType } from "./contract.ts";
import { oneOf, OPT_BODY } from "./fields.ts";
import { inRepo, maxSentence, target } from "./sentences.ts";

/** The `submit-pull-request-review` safe output. */
export const submitPullRequestReview: SafeOutputType = {
  key: "submit-pull-request-review",
  permissions: { contents: "read", "pull-requests": "write" },
  handler: (out) => {
    if (typeof out.footer === "boolean") out.footer = out.footer ? "always" : "none";
  },
  sentences: (c, m) => [
    ...maxSentence(m, "review(s) can be submitted"),
    ...target(c),
    ...inRepo(c, "Reviews will be submitted"),
  ],
  validation: {
    defaultMax: 1,
    fields: { body: OPT_BODY, event: oneOf(["APPROVE", "REQUEST_CHANGES", "COMMENT"]) },
  },
};
