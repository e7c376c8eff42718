/** `safe-outputs.update-discussion`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, list, OPT_BODY, REPO, text } from "./fields.ts";
import { allowedLabels, maxSentence, target } from "./sentences.ts";

/** The `update-discussion` safe output. */
export const updateDiscussion: SafeOutputType = {
  key: "update-discussion",
  permissions: { contents: "read", discussions: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "discussion(s) can be updated"),
    ...target(c),
    ...(c.title === true ? ["Title updates are allowed."] : []),
    ...(c.body === true ? ["Body updates are allowed."] : []),
    ...("labels" in c ? (allowedLabels(c).length ? allowedLabels(c) : ["Label updates are allowed."]) : []),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      discussion_number: ISSUE_OR_PR,
      labels: list(128),
      repo: REPO,
      title: text(128),
    },
    customValidation: "requiresOneOf:title,body,labels",
  },
};
