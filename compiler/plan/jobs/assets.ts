/** The `upload_assets` job: publishes files the agent staged with the `upload_asset` safe output to a branch. */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  gitCredentialsStep,
  type JobCtx,
  restoreActionsFolderSteps,
  scriptStep,
  setupSteps,
  sourceEnvOf,
  WRITE_TOKEN,
} from "../steps.ts";
import { dq, lit, plain, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { messagesJson } from "../safe_outputs/messages.ts";

/** Builds `upload_assets` from the `upload_asset` handler config. */
export function uploadAssetsJob(ctx: JobCtx, so: SafeOutputsPlan): JobPlan {
  const cfg = so.handlerConfig.upload_asset ?? {};
  const exts = Array.isArray(cfg["allowed-exts"]) ? cfg["allowed-exts"].map(String) : [];
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: plain("${{ steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT }}"),
    GH_AW_ASSETS_BRANCH: dq(String(cfg.branch ?? "assets/${{ github.workflow }}")),
    GH_AW_ASSETS_MAX_SIZE_KB: plain(String(cfg["max-size"] ?? 10240)),
    GH_AW_ASSETS_ALLOWED_EXTS: dq(exts.join(",")),
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...sourceEnvOf(ctx),
    GH_AW_ENGINE_ID: dq(ctx.engine.id),
    ...(ctx.engine.reportsVersion ? { GH_AW_ENGINE_VERSION: dq(ctx.engine.version) } : {}),
    GH_AW_ENGINE_MODEL: ctx.model ? dq(ctx.model) : plain("${{ needs.agent.outputs.model }}"),
  };
  if (so.staged) env.GH_AW_SAFE_OUTPUTS_STAGED = dq("true");
  const messages = messagesJson(so.global.messages);
  if (messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  const steps: StepPlan[] = [
    ...setupSteps(ctx, true),
    {
      name: "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": false, "fetch-depth": 0 },
    },
    gitCredentialsStep(ctx),
    {
      name: "Download assets",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: { name: "safe-outputs-assets", path: "/tmp/gh-aw/safeoutputs/assets/" },
    },
    {
      name: "List downloaded asset files",
      "continue-on-error": true,
      run: lit('echo "Downloaded asset files:"\nfind /tmp/gh-aw/safeoutputs/assets/ -maxdepth 1 -ls\n'),
    },
    ...agentOutputSteps(ctx),
    scriptStep(ctx, "Push assets", "upload_assets", { id: "upload_assets", env, token: WRITE_TOKEN }),
  ];
  steps.push(...restoreActionsFolderSteps(ctx));
  return {
    needs: ["activation", "agent"],
    if: plain(
      "(!cancelled()) && needs.agent.result != 'skipped' && contains(needs.agent.outputs.output_types, 'upload_asset')",
    ),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "write" },
    "timeout-minutes": 10,
    outputs: {
      branch_name: plain("${{ steps.upload_assets.outputs.branch_name }}"),
      published_count: plain("${{ steps.upload_assets.outputs.published_count }}"),
    },
    steps,
  };
}
