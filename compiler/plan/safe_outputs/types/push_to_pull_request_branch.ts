/** `safe-outputs.push-to-pull-request-branch`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY_MAX, ISSUE_OR_PR, req, text } from "./fields.ts";
import { maxSentence, q, str } from "./sentences.ts";
import { protectCodePush } from "./code_push.ts";

/** The `push-to-pull-request-branch` safe output. */
export const pushToPullRequestBranch: SafeOutputType = {
  key: "push-to-pull-request-branch",
  permissions: { contents: "write", "pull-requests": "write" },
  implicitMax: null,
  pushesCode: true,
  handler: (out, raw, { engineId }) => {
    out.if_no_changes ??= "warn";
    protectCodePush(out, raw, engineId, false);
  },
  sentences: (c, m) => [
    ...maxSentence(m, "push(es) can be made"),
    ...(str(c, "title-prefix")
      ? [`The target pull request title must start with ${q(str(c, "title-prefix"))}.`]
      : []),
  ],
  validation: {
    defaultMax: 1,
    fields: { branch: text(256, req), message: text(BODY_MAX, req), pull_request_number: ISSUE_OR_PR },
  },
  jobOutputs: () => ({ push_commit_sha: "push_commit_sha", push_commit_url: "push_commit_url" }),
};
