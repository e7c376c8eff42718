/**
 * `sandbox.agent.runtime: docker-sbx` outside the agent's own steps (gh-aw v0.87): activation checks the Docker
 * Hub secrets the microVM runtime logs in with (soft-failing, as `docker_sbx_secrets_result`), the agent does
 * not start when they are missing, and the conclusion runs to report it.
 */
import type { StepPlan } from "../types.ts";
import { type JobCtx, targetOf } from "../steps.ts";
import { plain, sq, type YValue } from "../../yaml/writer.ts";

/** The activation output naming the secrets check's verdict (`failed` when a secret is missing). */
export const DOCKER_SBX_RESULT = "needs.activation.outputs.docker_sbx_secrets_result";

/** Whether the agent runs in the docker-sbx microVM runtime and the target release checks its secrets. */
export function dockerSbxChecked(ctx: Pick<JobCtx, "target" | "sandboxInfo">): boolean {
  return targetOf(ctx).jobs.dockerSbxSecretsCheck && ctx.sandboxInfo?.agentRuntime === "docker-sbx";
}

/** The activation step checking `DOCKER_PAT` and `DOCKER_USERNAME` (soft: the agent is skipped instead). */
export function dockerSbxSecretsStep(ctx: Pick<JobCtx, "target" | "sandboxInfo">): StepPlan[] {
  if (!dockerSbxChecked(ctx)) return [];
  return [{
    name: "Check Docker Hub secrets for docker-sbx",
    id: "docker-sbx-secrets",
    env: {
      DOCKER_PAT_VAL: plain("${{ secrets.DOCKER_PAT }}"),
      DOCKER_USERNAME_VAL: plain("${{ secrets.DOCKER_USERNAME }}"),
      DOCKER_SBX_SECRETS_SOFT_FAIL: sq("true"),
    },
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/docker_sbx_secrets_check.sh"'),
  }];
}

/** The activation job's output of the check. */
export function dockerSbxOutputs(ctx: Pick<JobCtx, "target" | "sandboxInfo">): Record<string, YValue> {
  return dockerSbxChecked(ctx)
    ? { docker_sbx_secrets_result: plain("${{ steps.docker-sbx-secrets.outputs.verification_result }}") }
    : {};
}

/** The agent job's condition part: it does not start without the secrets. */
export function dockerSbxAgentCondition(ctx: Pick<JobCtx, "target" | "sandboxInfo">): string | undefined {
  return dockerSbxChecked(ctx) ? `${DOCKER_SBX_RESULT} != 'failed'` : undefined;
}

/** The failure handler's env naming the verdict. */
export function dockerSbxFailureEnv(ctx: Pick<JobCtx, "target" | "sandboxInfo">): Record<string, YValue> {
  return dockerSbxChecked(ctx)
    ? { GH_AW_DOCKER_SBX_SECRETS_RESULT: plain(`\${{ ${DOCKER_SBX_RESULT} }}`) }
    : {};
}
