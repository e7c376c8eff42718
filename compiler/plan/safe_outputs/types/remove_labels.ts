/** `safe-outputs.remove-labels`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, list, REPO, req } from "./fields.ts";
import { maxSentence, plainList, strs, target } from "./sentences.ts";

/** The `remove-labels` safe output. */
export const removeLabels: SafeOutputType = {
  key: "remove-labels",
  permissions: { contents: "read", issues: "write", "pull-requests": "write" },
  implicitMax: null,
  sentences: (c, m) => [
    ...maxSentence(m, "label(s) can be removed"),
    ...(strs(c, "allowed").length
      ? [`Only these labels can be removed: ${plainList(strs(c, "allowed"))}.`]
      : []),
    ...target(c),
  ],
  validation: {
    defaultMax: 5,
    fields: { item_number: ISSUE_OR_TEMP, labels: list(128, req), repo: REPO },
  },
};
