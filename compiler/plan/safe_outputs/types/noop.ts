/** `safe-outputs.noop`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY_MAX, req, text } from "./fields.ts";

/** The `noop` safe output. */
export const noop: SafeOutputType = {
  key: "noop",
  reporting: true,
  offersTool: false,
  validation: { defaultMax: 1, fields: { message: text(BODY_MAX, req) } },
};
