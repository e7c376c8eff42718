/** `safe-outputs.update-release`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, oneOf, REPLACE_OPS, req, text } from "./fields.ts";
import { maxSentence } from "./sentences.ts";

/** The `update-release` safe output. */
export const updateRelease: SafeOutputType = {
  key: "update-release",
  permissions: { contents: "write" },
  sentences: (_c, m) => maxSentence(m, "release(s) can be updated"),
  validation: {
    defaultMax: 1,
    fields: { body: BODY, operation: oneOf(REPLACE_OPS, req), tag: text(256) },
  },
};
