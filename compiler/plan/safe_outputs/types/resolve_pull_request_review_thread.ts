/** `safe-outputs.resolve-pull-request-review-thread`. */
import type { SafeOutputType } from "./contract.ts";
import { maxSentence } from "./sentences.ts";
import { rawString, req } from "./fields.ts";

/** The `resolve-pull-request-review-thread` safe output. */
export const resolvePullRequestReviewThread: SafeOutputType = {
  key: "resolve-pull-request-review-thread",
  permissions: { contents: "read", "pull-requests": "write" },
  sentences: (_c, m) => maxSentence(m, "review thread(s) can be resolved"),
  validation: { defaultMax: 10, fields: { thread_id: rawString(undefined, req) } },
};
