/** `safe-outputs.create-agent-task`. */
import type { SafeOutputType } from "./contract.ts";

/** The `create-agent-task` safe output. */
export const createAgentTask: SafeOutputType = {
  key: "create-agent-task",
};
