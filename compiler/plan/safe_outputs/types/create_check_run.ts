/** `safe-outputs.create-check-run`. */
import type { SafeOutputType } from "./contract.ts";
import { maxSentence, q, str } from "./sentences.ts";

/** The `create-check-run` safe output. */
export const createCheckRun: SafeOutputType = {
  key: "create-check-run",
  permissions: { checks: "write", contents: "read" },
  sentences: (c, m) => [
    ...maxSentence(m, "check run(s) can be created"),
    ...(str(c, "name") ? [`Check run name: ${q(str(c, "name"))}.`] : []),
  ],
};
