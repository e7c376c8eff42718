/** `safe-outputs.report-incomplete`. */
import type { SafeOutputType } from "./contract.ts";
import { OPT_BODY, req, text } from "./fields.ts";

/** The `report-incomplete` safe output. */
export const reportIncomplete: SafeOutputType = {
  key: "report-incomplete",
  reporting: true,
  offersTool: false,
  validation: { defaultMax: 5, fields: { details: OPT_BODY, reason: text(1024, req) } },
};
