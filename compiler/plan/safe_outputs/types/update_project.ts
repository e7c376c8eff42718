/** `safe-outputs.update-project`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, oneOf, OPT_BODY, OPT_POSITIVE, PROJECT_URL, text } from "./fields.ts";
import { maxSentence, project } from "./sentences.ts";

/** The `update-project` safe output. */
export const updateProject: SafeOutputType = {
  key: "update-project",
  permissions: { contents: "read", issues: "read" },
  sentences: (c, m) => [...maxSentence(m, "project operation(s) can be performed"), ...project(c)],
  validation: {
    defaultMax: 10,
    fields: {
      content_number: ISSUE_OR_TEMP,
      content_type: oneOf(["issue", "pull_request", "draft_issue"]),
      draft_body: OPT_BODY,
      draft_title: text(256),
      fields: { type: "object" },
      issue: OPT_POSITIVE,
      project: PROJECT_URL,
      pull_request: OPT_POSITIVE,
    },
  },
};
