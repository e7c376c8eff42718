/** The `pre_activation` job: role, stop-time, skip-if and command checks before anything runs. */
import type { JobPlan, StepPlan } from "../types.ts";
import { type JobCtx, scriptStep, setupSteps, targetOf, TRACE_OUTPUTS } from "../steps.ts";
import { dq, plain, sq, type YValue } from "../../yaml/writer.ts";

import { jobIf } from "./conditions.ts";
import { sortedRecord } from "./go_format.ts";
import {
  type RateLimit,
  rateLimitStep,
  skipBotsStep,
  type SkipIfCheckFailing,
  skipIfCheckFailingStep,
  skipRolesStep,
} from "./pre_activation_checks.ts";

/** Inputs of the pre-activation job. */
export interface PreActivationInput {
  ctx: JobCtx;
  roles?: string[];
  stopTime?: string;
  skipIfMatch?: { query: string; max?: number };
  skipIfNoMatch?: { query: string; min?: number };
  skipIfCheckFailing?: SkipIfCheckFailing;
  /** `on.skip-roles`: actors holding one of these roles do not start the workflow. */
  skipRoles?: string[];
  /** `on.skip-bots`: these bots do not start the workflow. */
  skipBots?: string[];
  rateLimit?: RateLimit;
  commands?: string[];
  ifCondition?: string;
  extraSteps: StepPlan[];
  /** Outputs of `on.steps` (`<id>_result`) and of `jobs.pre-activation`, merged after the built-in ones. */
  extraOutputs?: Record<string, YValue>;
  permissions: Record<string, string>;
}

/** The step checking that the slash command stands where it must (`check_command_position`). */
function commandPositionStep(ctx: JobCtx, commands: string[]): StepPlan {
  return scriptStep(ctx, "Check command position", "check_command_position", {
    id: "check_command_position",
    env: { GH_AW_COMMANDS: dq(JSON.stringify(commands)) },
  });
}

/** Builds the pre_activation job (gates `activation` through its `activated` output). */
export function preActivationJob(preActivationInput: PreActivationInput): JobPlan {
  const { ctx } = preActivationInput;
  const steps: StepPlan[] = [...setupSteps(ctx, false)];
  const checks: string[] = [];
  // Later releases check the command's position first and the membership only when it passed.
  const commandFirst = !!preActivationInput.commands && targetOf(ctx).jobs.commandCheckFirst;
  if (commandFirst) steps.push(commandPositionStep(ctx, preActivationInput.commands!));
  if (preActivationInput.roles) {
    const memberStep = preActivationInput.commands
      ? "Check team membership for command workflow"
      : "Check team membership for workflow";
    steps.push(scriptStep(ctx, memberStep, "check_membership", {
      id: "check_membership",
      ...(commandFirst
        ? { if: plain("steps.check_command_position.outputs.command_position_ok == 'true'") }
        : {}),
      env: { GH_AW_REQUIRED_ROLES: dq(preActivationInput.roles.join(",")) },
      token: "${{ secrets.GITHUB_TOKEN }}",
    }));
    checks.push("steps.check_membership.outputs.is_team_member == 'true'");
  }
  // The rate limit step runs right after the membership check; its condition joins `activated` last of
  // the checks (before the command's), as gh-aw v0.76 orders them.
  if (preActivationInput.rateLimit) steps.push(rateLimitStep(ctx, preActivationInput.rateLimit));
  if (preActivationInput.stopTime) {
    steps.push(scriptStep(ctx, "Check stop-time limit", "check_stop_time", {
      id: "check_stop_time",
      env: { GH_AW_STOP_TIME: dq(preActivationInput.stopTime), GH_AW_WORKFLOW_NAME: dq(ctx.name) },
    }));
    checks.push("steps.check_stop_time.outputs.stop_time_ok == 'true'");
  }
  if (preActivationInput.skipIfMatch) {
    steps.push(scriptStep(ctx, "Check skip-if-match query", "check_skip_if_match", {
      id: "check_skip_if_match",
      env: {
        GH_AW_SKIP_QUERY: dq(preActivationInput.skipIfMatch.query),
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        GH_AW_SKIP_MAX_MATCHES: dq(String(preActivationInput.skipIfMatch.max ?? 1)),
      },
    }));
    checks.push("steps.check_skip_if_match.outputs.skip_check_ok == 'true'");
  }
  if (preActivationInput.skipIfNoMatch) {
    steps.push(scriptStep(ctx, "Check skip-if-no-match query", "check_skip_if_no_match", {
      id: "check_skip_if_no_match",
      env: {
        GH_AW_SKIP_QUERY: dq(preActivationInput.skipIfNoMatch.query),
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        GH_AW_SKIP_MIN_MATCHES: dq(String(preActivationInput.skipIfNoMatch.min ?? 1)),
      },
    }));
    checks.push("steps.check_skip_if_no_match.outputs.skip_no_match_check_ok == 'true'");
  }
  if (preActivationInput.skipIfCheckFailing) {
    steps.push(skipIfCheckFailingStep(ctx, preActivationInput.skipIfCheckFailing));
    checks.push("steps.check_skip_if_check_failing.outputs.skip_if_check_failing_ok == 'true'");
  }
  if (preActivationInput.skipRoles) {
    steps.push(skipRolesStep(ctx, preActivationInput.skipRoles));
    checks.push("steps.check_skip_roles.outputs.skip_roles_ok == 'true'");
  }
  if (preActivationInput.skipBots) {
    steps.push(skipBotsStep(ctx, preActivationInput.skipBots));
    checks.push("steps.check_skip_bots.outputs.skip_bots_ok == 'true'");
  }
  if (preActivationInput.rateLimit) checks.push("steps.check_rate_limit.outputs.rate_limit_ok == 'true'");
  if (preActivationInput.commands) {
    if (!commandFirst) steps.push(commandPositionStep(ctx, preActivationInput.commands));
    checks.push("steps.check_command_position.outputs.command_position_ok == 'true'");
  }
  steps.push(...preActivationInput.extraSteps);
  const job: JobPlan = { "runs-on": "ubuntu-slim", steps };
  if (preActivationInput.ifCondition) job.if = jobIf(preActivationInput.ifCondition);
  if (Object.keys(preActivationInput.permissions).length > 0) {
    job.permissions = preActivationInput.permissions;
  }
  job.outputs = {
    activated: plain(`\${{ ${checks.length > 0 ? checks.join(" && ") : "'true' == 'true'"} }}`),
    matched_command: preActivationInput.commands
      ? plain("${{ steps.check_command_position.outputs.matched_command }}")
      : sq(""),
    ...TRACE_OUTPUTS,
    ...preActivationInput.extraOutputs,
  };
  job.outputs = sortedRecord(job.outputs);
  return job;
}
