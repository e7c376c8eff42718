/** `safe-outputs.add-labels`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_TEMP, list, REPO, req } from "./fields.ts";
import { maxSentence, quotedList, strs, target } from "./sentences.ts";

/** The `add-labels` safe output. */
export const addLabels: SafeOutputType = {
  key: "add-labels",
  permissions: { contents: "read", issues: "write", "pull-requests": "write" },
  implicitMax: null,
  sentences: (c, m) => [
    ...maxSentence(m, "label(s) can be added"),
    ...(strs(c, "allowed").length
      ? [`Only these labels are allowed: ${quotedList(strs(c, "allowed"))}.`]
      : []),
    ...target(c),
  ],
  validation: { defaultMax: 5, fields: { item_number: ISSUE_OR_TEMP, labels: list(128, req), repo: REPO } },
};
