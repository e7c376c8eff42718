/** `safe-outputs.push-to-pull-request-branch`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY_MAX, ISSUE_OR_PR, req, text } from "./fields.ts";
import { maxSentence, q, str } from "./sentences.ts";
import { protectCodePush } from "./code_push.ts";

/** The title prefix a target pull request must carry (`required-title-prefix`, or `title-prefix`). */
function titleGuard(c: Parameters<typeof str>[0]): string | undefined {
  return str(c, "required-title-prefix") || str(c, "title-prefix") || undefined;
}

/** The `push-to-pull-request-branch` safe output. */
export const pushToPullRequestBranch: SafeOutputType = {
  key: "push-to-pull-request-branch",
  permissions: { contents: "write", "pull-requests": "write" },
  implicitMax: null,
  pushesCode: true,
  handler: (out, raw, { instructionFiles }) => {
    // The runtime reads the PR title guard as `title_prefix` (the spec's key is `required-title-prefix`,
    // as for the close-* outputs) and the fork settings by their kebab names; snake-cased they are ignored.
    if (out.required_title_prefix !== undefined) {
      out.title_prefix ??= out.required_title_prefix;
      delete out.required_title_prefix;
    }
    for (const kebab of ["head-repo"]) {
      const snake = kebab.replace(/-/g, "_");
      if (out[snake] !== undefined) {
        out[kebab] = out[snake];
        delete out[snake];
      }
    }
    out.if_no_changes ??= "warn";
    protectCodePush(out, raw, instructionFiles, false);
  },
  sentences: (c, m) => [
    ...maxSentence(m, "push(es) can be made"),
    ...(titleGuard(c) ? [`The target pull request title must start with ${q(titleGuard(c)!)}.`] : []),
  ],
  validation: {
    defaultMax: 1,
    fields: { branch: text(256, req), message: text(BODY_MAX, req), pull_request_number: ISSUE_OR_PR },
  },
  jobOutputs: () => ({ push_commit_sha: "push_commit_sha", push_commit_url: "push_commit_url" }),
};
