/** `safe-outputs.dispatch-workflow`. */
import type { SafeOutputType } from "./contract.ts";

/** The `dispatch-workflow` safe output. */
export const dispatchWorkflow: SafeOutputType = {
  key: "dispatch-workflow",
  permissions: { actions: "write" },
};
