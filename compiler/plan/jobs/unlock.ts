/**
 * The `unlock` job of `lock-for-agent`: activation locks the triggering issue while the agent works on it,
 * and this job unlocks it once the agent (and threat detection) finished, whatever their result, before the
 * safe outputs comment on it.
 */
import type { JobPlan } from "../types.ts";
import { type JobCtx, scriptStep, setupSteps } from "../steps.ts";
import { plain } from "../../yaml/writer.ts";
import { ISSUE_EVENTS_GUARD } from "./activation.ts";
import type { Triggers } from "../../source/on_section.ts";

/** Whether `on.issues` or `on.issue_comment` sets `lock-for-agent: true`. */
export function locksForAgent(on: Triggers): boolean {
  return on.issues?.["lock-for-agent"] === true || on.issue_comment?.["lock-for-agent"] === true;
}

/** Builds `unlock`. */
export function unlockJob(ctx: JobCtx, detection: boolean): JobPlan {
  return {
    needs: ["activation", "agent", ...(detection ? ["detection"] : [])],
    if: plain("always() && needs.activation.result != 'skipped'"),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "read", issues: "write" },
    "timeout-minutes": 5,
    steps: [
      ...setupSteps(ctx, true),
      scriptStep(ctx, "Unlock issue after agentic workflow", "unlock-issue", {
        id: "unlock-issue",
        if: plain(`(${ISSUE_EVENTS_GUARD}) && needs.activation.outputs.issue_locked == 'true'`),
      }),
    ],
  };
}
