/** `safe-outputs.assign-milestone`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, OPT_POSITIVE, REPO, text } from "./fields.ts";
import { inRepo, maxSentence } from "./sentences.ts";

/** The `assign-milestone` safe output. */
export const assignMilestone: SafeOutputType = {
  key: "assign-milestone",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "milestone assignment(s) can be made"),
    ...inRepo(c, "Milestones will be assigned"),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      issue_number: ISSUE_OR_TEMP,
      milestone_number: OPT_POSITIVE,
      milestone_title: text(128),
      repo: REPO,
    },
    customValidation: "requiresOneOf:milestone_number,milestone_title",
  },
};
