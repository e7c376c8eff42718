/** `safe-outputs.create-project`. */
import type { SafeOutputType } from "./contract.ts";
import { oneOf, text } from "./fields.ts";

/** The `create-project` safe output. */
export const createProject: SafeOutputType = {
  key: "create-project",
  permissions: { contents: "read", issues: "read" },
  validation: {
    defaultMax: 1,
    fields: { item_url: text(512), owner: text(128), owner_type: oneOf(["org", "user"]), title: text(256) },
  },
};
