/** `safe-outputs.missing-tool`. */
import type { SafeOutputType } from "./contract.ts";
import { req, text } from "./fields.ts";

/** The `missing-tool` safe output. */
export const missingTool: SafeOutputType = {
  key: "missing-tool",
  reporting: true,
  offersTool: false,
  validation: {
    defaultMax: 20,
    fields: { alternatives: text(512), reason: text(256, req), tool: text(128) },
  },
};
