/** `safe-outputs.missing-data`. */
import type { SafeOutputType } from "./contract.ts";
import { text } from "./fields.ts";

/** The `missing-data` safe output. */
export const missingData: SafeOutputType = {
  key: "missing-data",
  reporting: true,
  offersTool: false,
  validation: {
    defaultMax: 20,
    fields: { alternatives: text(256), context: text(256), data_type: text(128), reason: text(256) },
  },
};
