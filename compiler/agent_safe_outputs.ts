/** The safe-outputs steps of the agent job: config and tools files, the MCP HTTP server, output ingestion. */
import type { AgentInput } from "./agent_input.ts";
import type { StepPlan } from "./plan_types.ts";
import { scriptStep } from "./jobs_common.ts";
import { dq, lit, plain, sq } from "./yaml_writer.ts";
import { heredocDelimiter } from "./hash.ts";

/** The steps that write the safe-outputs config and tools and start the safe-outputs MCP HTTP server. */
export function safeOutputsServerSteps(a: AgentInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  const cfgDelim = heredocDelimiter("SAFE_OUTPUTS_CONFIG", a.frontmatterHash);
  steps.push({
    name: "Generate Safe Outputs Config",
    run: lit(
      'mkdir -p "${RUNNER_TEMP}/gh-aw/safeoutputs"\nmkdir -p /tmp/gh-aw/safeoutputs\nmkdir -p /tmp/gh-aw/mcp-logs/safeoutputs\n' +
        `cat > "\${RUNNER_TEMP}/gh-aw/safeoutputs/config.json" << '${cfgDelim}'\n${
          JSON.stringify(a.handlerConfig)
        }\n${cfgDelim}\n`,
    ),
  });
  steps.push(scriptStep(ctx, "Generate Safe Outputs Tools", "generate_safe_outputs_tools"));
  steps.push({
    name: "Start Safe Outputs MCP HTTP Server",
    id: "safe-outputs-start",
    env: {
      DEBUG: sq("*"),
      GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
      GH_AW_SAFE_OUTPUTS_TOOLS_PATH: plain("${{ runner.temp }}/gh-aw/safeoutputs/tools.json"),
      GH_AW_SAFE_OUTPUTS_CONFIG_PATH: plain("${{ runner.temp }}/gh-aw/safeoutputs/config.json"),
      GH_AW_MCP_LOG_DIR: "/tmp/gh-aw/mcp-logs/safeoutputs",
    },
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/start_safe_outputs_server.sh"'),
  });
  return steps;
}

/** "Copy Safe Outputs" and "Ingest agent output" after the run. */
export function safeOutputsIngestSteps(a: AgentInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  steps.push(scriptStep(ctx, "Ingest agent output", "collect_ndjson_output", {
    id: "collect_output",
    if: plain("always()"),
    env: {
      GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
      GH_AW_ALLOWED_DOMAINS: dq(a.allowedDomains.join(",")),
      ...(a.allowedReferences !== undefined
        ? { GH_AW_ALLOWED_GITHUB_REFS: dq(a.allowedReferences.join(",")) }
        : {}),
    },
  }));
  return steps;
}
