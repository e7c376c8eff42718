/** `safe-outputs.create-code-scanning-alert`. */
import type { SafeOutputType } from "./contract.ts";
import { ID_PATTERN, oneOf, OPT_POSITIVE, POSITIVE, req, text } from "./fields.ts";
import { maxSentence } from "./sentences.ts";

/** The `create-code-scanning-alert` safe output. */
export const createCodeScanningAlert: SafeOutputType = {
  key: "create-code-scanning-alert",
  permissions: { contents: "read", "security-events": "write" },
  implicitMax: null,
  sentences: (_c, m) => maxSentence(m, "alert(s) can be created"),
  validation: {
    defaultMax: 40,
    fields: {
      column: OPT_POSITIVE,
      file: text(512, req),
      line: POSITIVE,
      message: text(2048, req),
      ruleIdSuffix: text(128, ID_PATTERN),
      severity: oneOf(["error", "warning", "info", "note"], req),
    },
  },
  // A staged handler writes no SARIF file, so there is nothing for the upload job.
  jobOutputs: (handler): Record<string, string> =>
    handler.staged === true ? {} : { sarif_file: "sarif_file" },
};
