/** `safe-outputs.call-workflow`. */
import type { SafeOutputType } from "./contract.ts";

/** The `call-workflow` safe output. */
export const callWorkflow: SafeOutputType = {
  key: "call-workflow",
  jobOutputs: () => ({
    call_workflow_name: "call_workflow_name",
    call_workflow_payload: "call_workflow_payload",
  }),
};
