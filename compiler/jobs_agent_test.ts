import assert from "node:assert/strict";
import { agentConcurrency, preAgentJobs } from "./jobs_agent.ts";

Deno.test("the agent waits for the first and last jobs of a pre-agent chain, not jobs after it", () => {
  assert.deepEqual(
    preAgentJobs({
      config: { needs: ["pre_activation", "activation"] },
      "push-tag": { needs: ["activation", "config"] },
      release: { needs: ["activation", "config", "push-tag"] },
      "post-issue": { needs: "agent" },
    }),
    ["config", "release"],
  );
  assert.deepEqual(preAgentJobs(undefined), []);
});

Deno.test("scheduled workflows queue agent runs per engine; entity and dispatch-only ones do not", () => {
  const base = { engineId: "copilot", workflowId: "w" };
  assert.deepEqual(
    JSON.stringify(
      agentConcurrency({ ...base, onText: "on:\n  schedule:\n  - cron: x\n  workflow_dispatch:" }),
    ),
    JSON.stringify({
      group: { value: "gh-aw-copilot-${{ github.workflow }}", style: "double" },
      queue: "max",
    }),
  );
  assert.equal(agentConcurrency({ ...base, onText: "on:\n  issues:\n    types: [opened]" }), undefined);
  assert.equal(agentConcurrency({ ...base, onText: "on:\n  workflow_dispatch:" }), undefined);
});
