/** `safe-outputs.create-agent-session`. */
import type { SafeOutputType } from "./contract.ts";
import { BODY, REPO } from "./fields.ts";
import { inRepo, maxSentence, plainList, q, str, strs } from "./sentences.ts";

/** The `create-agent-session` safe output. */
export const createAgentSession: SafeOutputType = {
  key: "create-agent-session",
  permissions: { contents: "read", issues: "write" },
  sentences: (c, m) => [
    ...maxSentence(m, "agent task(s) can be created"),
    ...(str(c, "base") ? [`Base branch for tasks: ${q(str(c, "base"))}.`] : []),
    ...inRepo(c, "Tasks will be created"),
    ...(strs(c, "allowed-repos").length
      ? [`Sessions can target these repositories: ${plainList(strs(c, "allowed-repos"))}.`]
      : []),
  ],
  validation: { defaultMax: 1, fields: { body: BODY, repo: REPO } },
  jobOutputs: () => ({
    create_agent_session_session_number: "session_number",
    create_agent_session_session_url: "session_url",
  }),
};
