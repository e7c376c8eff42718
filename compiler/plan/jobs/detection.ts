/**
 * The threat-detection job for the copilot engine, laid out exactly as gh-aw v0.76 emits it: the agent's
 * output and patch are re-read by the same engine inside the firewall (threat-detection allowlist, no MCP
 * servers) and the verdict gates the `safe_outputs` job.
 */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  artifactName,
  type JobCtx,
  scriptStep,
  setupSteps,
  shStep,
  targetOf,
} from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { Comment, dq, folded, lit, plain, sq } from "../../yaml/writer.ts";
import { AWF_HOST_PREPARATION, detectionAwfScript } from "../agent/awf_command.ts";
import { OIDC_REQUEST_ENV } from "../engine_auth.ts";
import type { Firewall } from "../../source/sandbox.ts";
import type { Engine, EngineDetection } from "../engines/contract.ts";
import { engineFor } from "../engines/registry.ts";
import { providerOf } from "../engines/provider_cli.ts";
import { type DetectionInput, federatedEnv, GUARD, imageSteps, sortedEnv } from "../engines/review.ts";

const PREPARE = `mkdir -p /tmp/gh-aw/threat-detection/aw-prompts
cp /tmp/gh-aw/aw-prompts/prompt.txt /tmp/gh-aw/threat-detection/aw-prompts/prompt.txt 2>/dev/null || true
cp /tmp/gh-aw/agent_output.json /tmp/gh-aw/threat-detection/agent_output.json 2>/dev/null || true
for f in /tmp/gh-aw/aw-*.patch; do
  [ -f "$f" ] && cp "$f" /tmp/gh-aw/threat-detection/ 2>/dev/null || true
done
for f in /tmp/gh-aw/aw-*.bundle; do
  [ -f "$f" ] && cp "$f" /tmp/gh-aw/threat-detection/ 2>/dev/null || true
done
echo "Prepared threat detection files:"
ls -la /tmp/gh-aw/threat-detection/ 2>/dev/null || true
`;

const GUARD_SCRIPT = `if [[ -n "$OUTPUT_TYPES" || "$HAS_PATCH" == "true" ]]; then
  echo "run_detection=true" >> "$GITHUB_OUTPUT"
  echo "Detection will run: output_types=$OUTPUT_TYPES, has_patch=$HAS_PATCH"
else
  echo "run_detection=false" >> "$GITHUB_OUTPUT"
  echo "Detection skipped: no agent outputs or patches to analyze"
fi
`;

const CONCLUDE = `try {
  const { setupGlobals } = require('\${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');
  setupGlobals(core, github, context, exec, io, getOctokit);
  const { main } = require('\${{ runner.temp }}/gh-aw/actions/parse_threat_detection_results.cjs');
  await main();
} catch (loadErr) {
  const continueOnError = process.env.GH_AW_DETECTION_CONTINUE_ON_ERROR !== 'false';
  const detectionExecutionFailed = process.env.DETECTION_AGENTIC_EXECUTION_OUTCOME === 'failure';
  const msg = 'ERR_SYSTEM: \\u274C Unexpected error loading threat detection module: ' + (loadErr && loadErr.message ? loadErr.message : String(loadErr));
  core.error(msg);
  core.setOutput('reason', 'parse_error');
  if (continueOnError && !detectionExecutionFailed) {
    core.warning('\\u26A0\\uFE0F ' + msg);
    core.setOutput('conclusion', 'warning');
    core.setOutput('success', 'false');
  } else {
    core.setOutput('conclusion', 'failure');
    core.setOutput('success', 'false');
    core.setFailed(msg);
  }
}
`;

/** The threat-detection job: every built-in engine reviews the agent's output with its own CLI. */
export function detectionJob(detectionInput: DetectionInput): JobPlan {
  const { ctx } = detectionInput;
  const engine = engineFor(detectionInput.engine);
  // A provider CLI picks its credentials from the `provider/` prefix of its model (copilot without one).
  const model = detectionInput.model ??
    `\${{ vars.GH_AW_MODEL_DETECTION_${detectionInput.engine.toUpperCase()} || '' }}`;
  const provider = engine.providerAuth ? providerOf(model) : "copilot";
  const steps: (StepPlan | Comment)[] = [
    ...prepareSteps(detectionInput, engine.detection),
    ...installSteps(detectionInput, engine.detection),
    execStep(detectionInput, engine, model, provider),
    ...concludeSteps(ctx),
  ];
  return {
    needs: ["activation", "agent"],
    if: folded(
      "always() && needs.agent.result != 'skipped' && (needs.agent.outputs.output_types != '' || needs.agent.outputs.has_patch == 'true')\n",
    ),
    "runs-on": "ubuntu-latest",
    permissions: ctx.grantsCopilotRequests
      ? { contents: "read", "copilot-requests": "write" }
      : detectionInput.auth
      ? { contents: "read", "id-token": "write" }
      : { contents: "read" },
    outputs: {
      detection_conclusion: plain("${{ steps.detection_conclusion.outputs.conclusion }}"),
      detection_reason: plain("${{ steps.detection_conclusion.outputs.reason }}"),
      detection_success: plain("${{ steps.detection_conclusion.outputs.success }}"),
    },
    steps: steps as StepPlan[],
  };
}

/** Setup, the agent's output, patch context, image pulls and the detection guard and files. */
function prepareSteps(detectionInput: DetectionInput, review: EngineDetection): (StepPlan | Comment)[] {
  const { ctx } = detectionInput;
  // Detection needs only the agent, so it reads the artifact prefix from the agent's outputs.
  const steps: (StepPlan | Comment)[] = [...setupSteps(ctx, true), ...agentOutputSteps(ctx, "agent")];
  if (ctx.experiments) {
    steps.push({
      name: "Download experiment artifact",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: {
        name: `${ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase()}-experiment`,
        path: "/tmp/gh-aw/experiments/",
      },
    });
  }
  steps.push({
    name: "Checkout repository for patch context",
    if: plain("needs.agent.outputs.has_patch == 'true'"),
    uses: plain(ctx.refs.checkout),
    with: { "persist-credentials": false },
  });
  steps.push(new Comment("--- Threat Detection ---"));
  steps.push({
    name: "Clean stale firewall files from agent artifact",
    run: lit("rm -rf /tmp/gh-aw/sandbox/firewall/logs\nrm -rf /tmp/gh-aw/sandbox/firewall/audit\n"),
  });
  if (review.imagesFirst) steps.push(...imageSteps(ctx, []));
  steps.push({
    name: "Check if detection needed",
    id: "detection_guard",
    if: plain("always()"),
    env: {
      OUTPUT_TYPES: plain("${{ needs.agent.outputs.output_types }}"),
      HAS_PATCH: plain("${{ needs.agent.outputs.has_patch }}"),
    },
    run: lit(GUARD_SCRIPT),
  });
  steps.push({
    name: "Clear MCP Config for detection",
    if: GUARD,
    run: lit(
      'rm -f "${RUNNER_TEMP}/gh-aw/mcp-config/mcp-servers.json"\nrm -f /home/runner/.copilot/mcp-config.json\nrm -f "$GITHUB_WORKSPACE/.gemini/settings.json"\n',
    ),
  });
  steps.push({ name: "Prepare threat detection files", if: GUARD, run: lit(PREPARE) });
  steps.push(scriptStep(ctx, "Setup threat detection", "setup_threat_detection", {
    if: GUARD,
    env: {
      WORKFLOW_NAME: dq(ctx.name),
      WORKFLOW_DESCRIPTION: dq(detectionInput.description),
      HAS_PATCH: plain("${{ needs.agent.outputs.has_patch }}"),
    },
  }));
  steps.push({
    name: "Ensure threat-detection directory and log",
    if: GUARD,
    run: lit("mkdir -p /tmp/gh-aw/threat-detection\ntouch /tmp/gh-aw/threat-detection/detection.log\n"),
  });
  return steps;
}

/** Node.js, the AWF binary and the engine's CLI (with its config). */
function installSteps(detectionInput: DetectionInput, review: EngineDetection): StepPlan[] {
  const { ctx } = detectionInput;
  const steps: StepPlan[] = [];
  if (review.needsNode) {
    steps.push({
      name: "Setup Node.js",
      uses: plain(detectionInput.setupNodeRef),
      with: { "node-version": sq("24"), "package-manager-cache": false },
    });
  }
  const awfInstall = shStep(
    "Install AWF binary",
    "install_awf_binary",
    ctx.firewall?.version ?? VERSIONS.awf,
  );
  steps.push(...review.installSteps(detectionInput, awfInstall));
  return steps;
}

/** The step that runs the engine's CLI on the agent's output. */
function execStep(detectionInput: DetectionInput, engine: Engine, model: string, provider: string): StepPlan {
  const { ctx } = detectionInput;
  const review = engine.detection;
  const exec: StepPlan = {
    name: `Execute ${engine.cliName}`,
    if: GUARD,
    "continue-on-error": true,
    id: "detection_agentic_execution",
  };
  review.decorate?.(exec);
  const auth = detectionInput.auth;
  const style = targetOf(ctx).jobs.agent.awf;
  exec.run = lit(
    style
      ? detectionAwfScript({
        style,
        config: {
          allowDomains: review.domains(model).sort(),
          targets: review.apiTargets as Record<string, { host: string }> | undefined,
          firewall: ctx.firewall,
          models: ctx.models,
          style,
          imageDigests: detectionInput.firewallDigests,
          detached: true,
        },
        setup: review.setup,
        tty: /(^| )--tty( |$)/.test(review.envArgs(detectionInput.byokEnv !== undefined)),
        excludeEnv: [
          ...[...review.envArgs(detectionInput.byokEnv !== undefined).matchAll(/--exclude-env (\S+)/g)].map((
            m,
          ) => m[1]),
          ...(auth ? OIDC_REQUEST_ENV : []),
        ],
        command: review.command(model),
        log: "/tmp/gh-aw/threat-detection/detection.log",
      })
      : detectionRun(
        review,
        ctx.firewall,
        model,
        ctx.maxEffectiveTokens,
        auth !== undefined,
        detectionInput.byokEnv !== undefined,
      ),
  );
  exec.env = review.env({ d: detectionInput, model, provider });
  if (auth) exec.env = federatedEnv(exec.env, auth);
  // The review's budget: the repository's detection default, as the run script reads it.
  if (style) {
    exec.env = sortedEnv({
      ...exec.env,
      GH_AW_MAX_AI_CREDITS: plain(
        `\${{ vars.${style.detection.maxAiCreditsVar} || '${style.detection.maxAiCreditsDefault}' }}`,
      ),
    });
  }
  return exec;
}

/**
 * The firewall-wrapped command line that runs the engine's CLI on the review prompt. The review spends from
 * the workflow's own `max-effective-tokens` budget (the firewall's default when unset); its run count stays
 * the default.
 */
function detectionRun(
  review: EngineDetection,
  fw: Firewall | undefined,
  model: string,
  maxEffectiveTokens: number | string | undefined,
  federated: boolean,
  /** A BYOK Copilot review has no Copilot token to keep from the sandbox. */
  byok: boolean,
): string {
  const awf = {
    $schema: `https://github.com/github/gh-aw-firewall/releases/download/${
      fw?.version ?? VERSIONS.awf
    }/awf-config.schema.json`,
    network: { allowDomains: review.domains(model).sort() },
    apiProxy: {
      enabled: true,
      enableTokenSteering: true,
      maxRuns: 500,
      maxEffectiveTokens: typeof maxEffectiveTokens === "number"
        ? maxEffectiveTokens
        : typeof maxEffectiveTokens === "string" && /^\d+$/.test(maxEffectiveTokens)
        ? Number(maxEffectiveTokens)
        : 25000000,
      ...(review.apiTargets ? { targets: review.apiTargets } : {}),
    },
    container: { imageTag: fw?.imageTag ?? VERSIONS.awfImageTag },
  };
  return [
    "set -o pipefail",
    `printf '%s' "$(date +%s%3N)" > /tmp/gh-aw/agent_cli_start_ms.txt`,
    ...review.setup,
    "(umask 177 && touch /tmp/gh-aw/threat-detection/detection.log)",
    `printf '%s\\n' '${JSON.stringify(awf)}' > "\${RUNNER_TEMP}/gh-aw/awf-config.json"`,
    ...AWF_HOST_PREPARATION,
    'sudo -E awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}" --mount "${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro" --mount "${RUNNER_TEMP}/gh-aw:/host${RUNNER_TEMP}/gh-aw:ro" ${GH_AW_TOOL_CACHE_MOUNT:+--mount "$GH_AW_TOOL_CACHE_MOUNT"} ${GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS} ' +
    review.envArgs(byok) +
    // A federated engine's OIDC request variables stay with the API proxy (see engine_auth.ts).
    (federated ? OIDC_REQUEST_ENV.map((v) => ` --exclude-env ${v}`).join("") : "") +
    " --log-level info --proxy-logs-dir /tmp/gh-aw/sandbox/firewall/logs --audit-dir /tmp/gh-aw/sandbox/firewall/audit --enable-host-access --allow-host-ports 80,443,8080 --skip-pull \\",
    `  -- /bin/bash -c '${review.command(model)}' 2>&1 | tee -a /tmp/gh-aw/threat-detection/detection.log`,
  ].join("\n") + "\n";
}

function concludeSteps(ctx: JobCtx): StepPlan[] {
  return [
    {
      name: "Upload threat detection log",
      if: GUARD,
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "detection", "agent"),
        path: "/tmp/gh-aw/threat-detection/detection.log",
        "if-no-files-found": "ignore",
      },
    },
    {
      name: "Parse and conclude threat detection",
      id: "detection_conclusion",
      if: plain("always()"),
      "continue-on-error": true,
      uses: plain(ctx.refs.githubScript),
      env: {
        RUN_DETECTION: plain("${{ steps.detection_guard.outputs.run_detection }}"),
        DETECTION_AGENTIC_EXECUTION_OUTCOME: plain("${{ steps.detection_agentic_execution.outcome }}"),
        GH_AW_DETECTION_CONTINUE_ON_ERROR: dq("true"),
      },
      with: { script: lit(CONCLUDE) },
    },
  ];
}
