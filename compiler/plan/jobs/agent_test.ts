import assert from "node:assert/strict";
import { preAgentJobs } from "./agent.ts";

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
