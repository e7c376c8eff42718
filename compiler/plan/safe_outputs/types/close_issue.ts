/** `safe-outputs.close-issue`. */
import type { SafeOutputType } from "./contract.ts";
import { OPT_BODY, OPT_POSITIVE, REPO } from "./fields.ts";
import { maxSentence, requiredPrefix, target } from "./sentences.ts";

/** The `close-issue` safe output. */
export const closeIssue: SafeOutputType = {
  key: "close-issue",
  permissions: { contents: "read", issues: "write" },
  sentences: (
    c,
    m,
  ) => [...maxSentence(m, "issue(s) can be closed"), ...target(c), ...requiredPrefix(c, "issues")],
  validation: { defaultMax: 1, fields: { body: OPT_BODY, issue_number: OPT_POSITIVE, repo: REPO } },
};
