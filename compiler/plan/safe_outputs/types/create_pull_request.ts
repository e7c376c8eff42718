/** `safe-outputs.create-pull-request`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, list, REPO, req, text } from "./fields.ts";
import { allowedLabels, labels, maxSentence, q, quotedList, str, strs, titlePrefix } from "./sentences.ts";
import { protectCodePush } from "./code_push.ts";

/** The `create-pull-request` safe output. */
export const createPullRequest: SafeOutputType = {
  key: "create-pull-request",
  permissions: { contents: "write", issues: "write", "pull-requests": "write" },
  // The issues scope is for the fallback issue; with `fallback-as-issue: false` there is none to open.
  permissionsFor: (raw): Record<string, string> =>
    raw["fallback-as-issue"] === false
      ? { contents: "write", "pull-requests": "write" }
      : { contents: "write", issues: "write", "pull-requests": "write" },
  pushesCode: true,
  handler: (out, raw, { instructionFiles }) => {
    // `fallback_as_issue` is left to the runtime default (true); an explicit false passes through.
    out.max_patch_files ??= 100;
    protectCodePush(out, raw, instructionFiles, true);
  },
  sentences: (c, m) => [
    ...maxSentence(m, "pull request(s) can be created"),
    ...(str(c, "branch-prefix") ? [`Branch name will be prefixed with ${q(str(c, "branch-prefix"))}.`] : []),
    ...titlePrefix(c),
    ...labels(c),
    ...allowedLabels(c),
    ...(c.draft === true || c.draft === "true" ? ["PRs will be created as drafts."] : []),
    ...(strs(c, "reviewers").length
      ? [`Reviewers ${quotedList(strs(c, "reviewers"))} will be assigned.`]
      : []),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      base: text(128),
      body: BODY,
      branch: text(256, req),
      draft: { type: "boolean" },
      labels: list(128),
      repo: REPO,
      title: text(128, req),
    },
  },
  jobOutputs: () => ({ created_pr_number: "created_pr_number", created_pr_url: "created_pr_url" }),
};
