/** `safe-outputs.close-discussion`. */
import type { SafeOutputType } from "./contract.ts";
import { oneOf, OPT_BODY, OPT_POSITIVE, REPO } from "./fields.ts";
import { inRepo, maxSentence, requiredPrefix, target } from "./sentences.ts";

/** The `close-discussion` safe output. */
export const closeDiscussion: SafeOutputType = {
  key: "close-discussion",
  permissions: { contents: "read", discussions: "write" },
  handler: (out) => {
    delete out.required_category;
  },
  sentences: (c, m) => [
    ...maxSentence(m, "discussion(s) can be closed"),
    ...target(c),
    ...inRepo(c, "Discussions will be closed"),
    ...requiredPrefix(c, "discussions"),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      discussion_number: OPT_POSITIVE,
      reason: oneOf(["RESOLVED", "DUPLICATE", "OUTDATED", "ANSWERED"]),
      repo: REPO,
    },
  },
};
