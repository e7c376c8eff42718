/** `safe-outputs.autofix-code-scanning-alert`. */
import type { SafeOutputType } from "./contract.ts";

/** The `autofix-code-scanning-alert` safe output. */
export const autofixCodeScanningAlert: SafeOutputType = {
  key: "autofix-code-scanning-alert",
  permissions: { actions: "read", contents: "read", "security-events": "write" },
};
