/** `safe-outputs.close-pull-request`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, OPT_POSITIVE, REPO } from "./fields.ts";
import { inRepo, maxSentence, plainList, requiredPrefix, strs, target } from "./sentences.ts";

/** The `close-pull-request` safe output. */
export const closePullRequest: SafeOutputType = {
  key: "close-pull-request",
  permissions: { contents: "read", "pull-requests": "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "pull request(s) can be closed"),
    ...target(c),
    ...inRepo(c, "Pull requests will be closed"),
    ...(strs(c, "required-labels").length
      ? [`Only PRs with labels ${plainList(strs(c, "required-labels"))} can be closed.`]
      : []),
    ...requiredPrefix(c, "PRs"),
  ],
  validation: {
    defaultMax: 1,
    fields: { body: BODY, pull_request_number: OPT_POSITIVE, repo: REPO },
  },
};
