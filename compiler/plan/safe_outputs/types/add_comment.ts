/** `safe-outputs.add-comment`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, ISSUE_OR_PR, REPO } from "./fields.ts";
import { inRepo, maxSentence, target } from "./sentences.ts";

/** The `add-comment` safe output. */
export const addComment: SafeOutputType = {
  key: "add-comment",
  permissions: { contents: "read", discussions: "write", issues: "write", "pull-requests": "write" },
  // Spec: comments go to discussions only with `discussions: true` (default off), so only then the scope;
  // `pull-requests: false` turns pull-request comments off, and their scope with them (as gh-aw does).
  permissionsFor: (raw): Record<string, string> => ({
    contents: "read",
    ...(raw.discussions === true ? { discussions: "write" } : {}),
    issues: "write",
    ...(raw["pull-requests"] === false ? {} : { "pull-requests": "write" }),
  }),
  handler: (out) => {
    if (out.discussions === undefined) out.discussions = false;
    if (out.issues === undefined) delete out.issues;
    // gh-aw's handler config names no `pull_requests: false` (the missing scope already says it).
    if (out.pull_requests === false) delete out.pull_requests;
  },
  sentences: (c, m) => [
    ...maxSentence(m, "comment(s) can be added"),
    ...target(c),
    ...inRepo(c, "Comments will be added"),
    "Supports reply_to_id for discussion threading.",
  ],
  validation: {
    defaultMax: 1,
    fields: { body: BODY, item_number: ISSUE_OR_PR, reply_to_id: REPO, repo: REPO },
  },
  jobOutputs: () => ({ comment_id: "comment_id", comment_url: "comment_url" }),
};
