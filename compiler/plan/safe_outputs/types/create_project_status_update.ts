/** `safe-outputs.create-project-status-update`. */
import type { SafeOutputType } from "./contract.ts";
import { DATE, oneOf, PROJECT_URL, req, text } from "./fields.ts";
import { maxSentence, project } from "./sentences.ts";

/** The `create-project-status-update` safe output. */
export const createProjectStatusUpdate: SafeOutputType = {
  key: "create-project-status-update",
  permissions: { contents: "read", issues: "read" },
  sentences: (
    c,
    m,
  ) => [...maxSentence(m, "status update(s) can be created"), ...project(c)],
  validation: {
    defaultMax: 10,
    fields: {
      body: text(65536, req),
      project: PROJECT_URL,
      start_date: DATE,
      status: oneOf(["INACTIVE", "ON_TRACK", "AT_RISK", "OFF_TRACK", "COMPLETE"]),
      target_date: DATE,
    },
  },
};
