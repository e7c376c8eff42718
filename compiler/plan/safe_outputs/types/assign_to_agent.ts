/** `safe-outputs.assign-to-agent`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, OPT_POSITIVE, REPO, text } from "./fields.ts";
import { inRepo, maxSentence, plainList, q, str, strs } from "./sentences.ts";

/** The `assign-to-agent` safe output. */
export const assignToAgent: SafeOutputType = {
  key: "assign-to-agent",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "issue(s) can be assigned to agent"),
    ...(str(c, "base-branch") ? [`Pull requests will target the ${q(str(c, "base-branch"))} branch.`] : []),
    ...inRepo(c, "Issues will be assigned to agent"),
    ...(strs(c, "allowed-repos").length
      ? [`Agent assignment can target these repositories: ${plainList(strs(c, "allowed-repos"))}.`]
      : []),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      agent: text(128),
      issue_number: ISSUE_OR_TEMP,
      pull_number: OPT_POSITIVE,
      pull_request_repo: REPO,
      repo: REPO,
    },
    customValidation: "requiresOneOf:issue_number,pull_number",
  },
  jobOutputs: () => ({
    assign_to_agent_assigned: "assign_to_agent_assigned",
    assign_to_agent_assignment_error_count: "assign_to_agent_assignment_error_count",
    assign_to_agent_assignment_errors: "assign_to_agent_assignment_errors",
  }),
};
