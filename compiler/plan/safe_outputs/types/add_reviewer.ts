/** `safe-outputs.add-reviewer`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, list, REPO } from "./fields.ts";
import { maxSentence } from "./sentences.ts";

/** The `add-reviewer` safe output. */
export const addReviewer: SafeOutputType = {
  key: "add-reviewer",
  permissions: { contents: "read", "pull-requests": "write" },
  sentences: (_c, m) => maxSentence(m, "reviewer(s) can be added"),
  validation: {
    defaultMax: 3,
    fields: { pull_request_number: ISSUE_OR_PR, repo: REPO, reviewers: list(39), team_reviewers: list(100) },
    customValidation: "requiresOneOf:reviewers,team_reviewers",
  },
  jobOutputs: () => ({ add_reviewer_reviewers_added: "reviewers_added" }),
};
