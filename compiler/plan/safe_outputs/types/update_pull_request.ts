/** `safe-outputs.update-pull-request`. */
import type { SafeOutputType } from "./contract.ts";
import { ISSUE_OR_PR, oneOf, OPT_BODY, REPLACE_OPS, REPO, text } from "./fields.ts";
import { allowSwitches } from "./update_switches.ts";
import { maxSentence, target } from "./sentences.ts";

/** The `update-pull-request` safe output. */
export const updatePullRequest: SafeOutputType = {
  key: "update-pull-request",
  permissions: { contents: "read", "pull-requests": "write" },
  handler: (out, raw) => {
    allowSwitches(out, raw);
    out.allow_body ??= true;
    out.allow_title ??= true;
    out.update_branch ??= false;
    if (out.operation !== undefined) {
      out.default_operation = out.operation;
      delete out.operation;
    }
  },
  sentences: (c, m) => [...maxSentence(m, "pull request(s) can be updated"), ...target(c)],
  validation: {
    defaultMax: 1,
    fields: {
      body: OPT_BODY,
      draft: { type: "boolean" },
      operation: oneOf(REPLACE_OPS),
      pull_request_number: ISSUE_OR_PR,
      repo: REPO,
      title: text(256),
      update_branch: { type: "boolean" },
    },
    customValidation: "requiresOneOf:title,body,update_branch",
  },
};
