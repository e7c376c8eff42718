/** `safe-outputs.create-discussion`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY_MAX, REPO, req, text } from "./fields.ts";
import { allowedLabels, inRepo, maxSentence, q, str, titlePrefix } from "./sentences.ts";

/** The `create-discussion` safe output. */
export const createDiscussion: SafeOutputType = {
  key: "create-discussion",
  permissions: { contents: "read", discussions: "write", issues: "write" },
  handler: (out, raw) => {
    if (out.fallback_to_issue === undefined) out.fallback_to_issue = true;
    // Closing older discussions without an expiry expires the new one after a week.
    if (out.close_older_discussions === true && raw.expires === undefined) out.expires = 168;
    if (typeof out.category === "string") out.category = out.category.toLowerCase();
  },
  sentences: (c, m) => [
    ...maxSentence(m, "discussion(s) can be created"),
    ...titlePrefix(c),
    ...(str(c, "category") ? [`Discussions will be created in category ${q(str(c, "category"))}.`] : []),
    ...allowedLabels(c),
    ...inRepo(c, "Discussions will be created"),
  ],
  validation: {
    defaultMax: 1,
    fields: {
      body: text(BODY_MAX, { ...req, minLength: 64 }),
      category: text(128),
      repo: REPO,
      title: text(128, req),
    },
  },
};
