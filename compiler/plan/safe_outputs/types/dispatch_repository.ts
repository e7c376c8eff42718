/** `safe-outputs.dispatch_repository`. */
import type { SafeOutputType } from "./contract.ts";

/** The `dispatch_repository` safe output. */
export const dispatchRepository: SafeOutputType = {
  key: "dispatch_repository",
};
