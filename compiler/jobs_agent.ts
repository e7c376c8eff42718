/** The `agent` job (engine inside the AWF firewall, MCP gateway, safe-outputs MCP server) and `detection`. */
import type { JobPlan, StepPlan } from "./plan_types.ts";
import {
  agentOutputSteps,
  gitCredentialsStep,
  type JobCtx,
  otlpMaskSteps,
  scriptStep,
  setupSteps,
  shStep,
  TRACE_OUTPUTS,
  VERSIONS,
} from "./jobs_common.ts";
import { dq, folded, lit, plain, sq, type YValue } from "./yaml_writer.ts";
import { heredocDelimiter } from "./hash.ts";

/** Inputs of the agent job. */
export interface AgentInput {
  ctx: JobCtx;
  frontmatterHash: string;
  runsOn: YValue;
  permissions: Record<string, string> | string;
  install: string;
  engineDisplay: string;
  engineEnv: Record<string, string>;
  secrets: string[];
  usesCopilotRequests: boolean;
  model?: string;
  maxTurns?: number | string;
  maxContinuations?: number | string;
  timeoutMinutes: number | string;
  allowedDomains: string[];
  blockedDomains: string[];
  handlerConfig: Record<string, unknown>;
  /** `safe-outputs.allowed-github-references` (sanitizer setting applied when ingesting agent output). */
  allowedReferences?: string[];
  github: { toolsets: string; readOnly: boolean; minIntegrity?: string } | undefined;
  mcpServers: Record<string, Record<string, unknown>>;
  containers: string[];
  customSteps: StepPlan[];
  checkouts: Record<string, YValue>[];
  cacheSteps: StepPlan[];
  env: Record<string, YValue>;
  concurrency?: Record<string, YValue>;
  environment?: YValue;
}

function engineCommand(a: AgentInput): string {
  const id = a.ctx.engineId;
  const model = a.model ? ` --model ${a.model}` : "";
  switch (id) {
    case "claude":
      return `claude --print --disable-slash-commands --no-chrome${
        a.maxTurns !== undefined ? ` --max-turns ${a.maxTurns}` : ""
      }${model} --output-format stream-json --verbose "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "codex":
      return `codex${model} exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "gemini":
      return `gemini --yolo${model} --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "crush":
      return `crush run${model} "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    default: {
      const cont = a.maxContinuations !== undefined
        ? ` --autopilot --max-autopilot-continues ${a.maxContinuations}`
        : "";
      return `copilot --add-dir /tmp/gh-aw/ --log-level all --log-dir /tmp/gh-aw/sandbox/agent/logs/ --add-dir "\${GITHUB_WORKSPACE}" --disable-builtin-mcps --allow-all-tools --allow-all-paths${cont}${model} --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    }
  }
}

/** Builds the MCP gateway configuration object. */
function mcpConfig(a: AgentInput): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  if (a.github) {
    servers.github = {
      type: "stdio",
      container: `ghcr.io/github/github-mcp-server:${VERSIONS.githubMcp}`,
      env: {
        GITHUB_HOST: "\\${GITHUB_SERVER_URL}",
        GITHUB_PERSONAL_ACCESS_TOKEN: "\\${GITHUB_MCP_SERVER_TOKEN}",
        GITHUB_READ_ONLY: a.github.readOnly ? "1" : "0",
        GITHUB_TOOLSETS: a.github.toolsets,
      },
      "guard-policies": {
        "allow-only": {
          "min-integrity": a.github.minIntegrity ?? "$GITHUB_MCP_GUARD_MIN_INTEGRITY",
          repos: "$GITHUB_MCP_GUARD_REPOS",
        },
      },
    };
  }
  servers.safeoutputs = {
    type: "http",
    url: "http://host.docker.internal:$GH_AW_SAFE_OUTPUTS_PORT",
    headers: { Authorization: "\\${GH_AW_SAFE_OUTPUTS_API_KEY}" },
    "guard-policies": { "write-sink": { accept: ["*"] } },
  };
  for (const [name, cfg] of Object.entries(a.mcpServers)) {
    const s: Record<string, unknown> = {};
    if (cfg.url) {
      s.type = "http";
      s.url = cfg.url;
      if (cfg.headers) s.headers = cfg.headers;
    } else {
      s.type = "stdio";
      if (cfg.container ?? cfg.image) s.container = cfg.container ?? cfg.image;
      if (cfg.command) s.command = cfg.command;
      if (cfg.args) s.args = cfg.args;
      if (cfg.env) s.env = cfg.env;
    }
    if (cfg.allowed) s.tools = cfg.allowed;
    servers[name] = s;
  }
  return {
    mcpServers: servers,
    gateway: {
      port: "$MCP_GATEWAY_PORT",
      domain: "${MCP_GATEWAY_DOMAIN}",
      apiKey: "${MCP_GATEWAY_API_KEY}",
      payloadDir: "${MCP_GATEWAY_PAYLOAD_DIR}",
    },
  };
}

/** Builds the agent job. */
export function agentJob(a: AgentInput): JobPlan {
  const { ctx } = a;
  const steps: StepPlan[] = [...setupSteps(ctx, true)];
  steps.push({
    name: "Set runtime paths",
    id: "set-runtime-paths",
    run: lit(
      '{\n  echo "GH_AW_SAFE_OUTPUTS=${RUNNER_TEMP}/gh-aw/safeoutputs/outputs.jsonl"\n' +
        '  echo "GH_AW_SAFE_OUTPUTS_CONFIG_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/config.json"\n' +
        '  echo "GH_AW_SAFE_OUTPUTS_TOOLS_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/tools.json"\n} >> "$GITHUB_OUTPUT"\n',
    ),
  });
  steps.push(...otlpMaskSteps(ctx));
  if (a.checkouts.length === 0) {
    steps.push({
      name: "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": false },
    });
  } else {
    for (const c of a.checkouts) {
      steps.push({
        name: c.repository ? `Checkout ${String(c.repository)}` : "Checkout repository",
        uses: plain(ctx.refs.checkout),
        with: { "persist-credentials": false, ...c },
      });
    }
  }
  steps.push(shStep("Create gh-aw temp directory", "create_gh_aw_tmp_dir"));
  steps.push(...a.cacheSteps);
  steps.push(gitCredentialsStep());
  steps.push(...a.customSteps);
  steps.push({ name: `Install ${a.engineDisplay}`, run: plain(a.install) });
  steps.push(shStep("Install AWF binary", "install_awf_binary", VERSIONS.awf));
  steps.push({
    name: "Download activation artifact",
    uses: plain(ctx.refs.download),
    with: { name: "activation", path: "/tmp/gh-aw" },
  });
  steps.push(shStep("Download container images", "download_docker_images", a.containers.join(" ")));
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
  const mcpDelim = heredocDelimiter("MCP_CONFIG", a.frontmatterHash);
  const gwEnv: Record<string, YValue> = {
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GH_AW_SAFE_OUTPUTS_API_KEY: plain("${{ steps.safe-outputs-start.outputs.api_key }}"),
    GH_AW_SAFE_OUTPUTS_PORT: plain("${{ steps.safe-outputs-start.outputs.port }}"),
  };
  if (a.github) {
    gwEnv.GITHUB_MCP_SERVER_TOKEN = plain(
      "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
    );
  }
  steps.push({
    name: "Start MCP Gateway",
    id: "start-mcp-gateway",
    env: gwEnv,
    run: lit(
      'set -eo pipefail\nmkdir -p "${RUNNER_TEMP}/gh-aw/mcp-config"\nexport MCP_GATEWAY_PORT="8080"\n' +
        "export MCP_GATEWAY_DOMAIN=\"host.docker.internal\"\nMCP_GATEWAY_API_KEY=$(openssl rand -base64 45 | tr -d '/+=')\n" +
        'echo "::add-mask::${MCP_GATEWAY_API_KEY}"\nexport MCP_GATEWAY_API_KEY\nexport MCP_GATEWAY_PAYLOAD_DIR="/tmp/gh-aw/mcp-payloads"\n' +
        `export GH_AW_ENGINE="${ctx.engineId}"\n` +
        `export MCP_GATEWAY_DOCKER_COMMAND='docker run -i --rm --network host ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}'\n` +
        `cat << ${mcpDelim} | node "\${RUNNER_TEMP}/gh-aw/actions/start_mcp_gateway.cjs"\n` +
        JSON.stringify(mcpConfig(a), null, 2).replace('"$MCP_GATEWAY_PORT"', "$MCP_GATEWAY_PORT") +
        `\n${mcpDelim}\n`,
    ),
  });
  steps.push(shStep("Clean credentials", "clean_git_credentials", "", { "continue-on-error": true }));
  const awfConfig = {
    $schema:
      `https://github.com/github/gh-aw-firewall/releases/download/${VERSIONS.awf}/awf-config.schema.json`,
    network: {
      allowDomains: a.allowedDomains,
      ...(a.blockedDomains.length ? { blockDomains: a.blockedDomains } : {}),
    },
    apiProxy: { enabled: true, maxRuns: 500, maxEffectiveTokens: 25000000 },
    container: { imageTag: VERSIONS.awfImageTag },
  };
  const execEnv: Record<string, YValue> = {};
  for (const s of a.secrets) execEnv[s] = plain(`\${{ secrets.${s} }}`);
  if (a.usesCopilotRequests) execEnv.COPILOT_GITHUB_TOKEN = plain("${{ github.token }}");
  if (a.model) execEnv.GH_AW_MODEL = dq(a.model);
  if (a.maxTurns !== undefined) execEnv.GH_AW_MAX_TURNS = dq(String(a.maxTurns));
  execEnv.GH_AW_PROMPT = "/tmp/gh-aw/aw-prompts/prompt.txt";
  execEnv.GH_AW_SAFE_OUTPUTS = plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}");
  execEnv.GITHUB_WORKSPACE = plain("${{ github.workspace }}");
  for (const [k, v] of Object.entries(a.engineEnv)) execEnv[k] = v;
  steps.push({
    name: `Execute ${a.engineDisplay}`,
    id: "agentic_execution",
    "timeout-minutes": a.timeoutMinutes,
    run: lit(
      "set -o pipefail\n" +
        `printf '%s\\n' '${JSON.stringify(awfConfig)}' > "\${RUNNER_TEMP}/gh-aw/awf-config.json"\n` +
        'sudo -E awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}" --env-all ' +
        a.secrets.map((s) => `--exclude-env ${s} `).join("") +
        "--log-level info --proxy-logs-dir /tmp/gh-aw/sandbox/firewall/logs --enable-host-access --skip-pull \\\n" +
        `  -- /bin/bash -c '${
          engineCommand(a).replace(/'/g, "'\\''")
        }' 2>&1 | tee -a /tmp/gh-aw/agent-stdio.log\n`,
    ),
    env: execEnv,
  });
  steps.push(scriptStep(ctx, "Redact secrets in logs", "redact_secrets", { if: plain("always()") }));
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
  steps.push({
    name: "Upload agent artifacts",
    if: plain("always()"),
    "continue-on-error": true,
    uses: plain(ctx.refs.upload),
    with: {
      name: "agent",
      path: lit(
        "/tmp/gh-aw/aw-prompts/prompt.txt\n/tmp/gh-aw/sandbox/agent/logs/\n/tmp/gh-aw/mcp-logs/\n/tmp/gh-aw/agent-stdio.log\n" +
          "/tmp/gh-aw/agent/\n/tmp/gh-aw/safeoutputs.jsonl\n/tmp/gh-aw/agent_output.json\n/tmp/gh-aw/awf-config.json\n" +
          "/tmp/gh-aw/sandbox/firewall/logs/\n",
      ),
      "if-no-files-found": "ignore",
    },
  });
  const job: JobPlan = { needs: "activation", "runs-on": a.runsOn, steps };
  if (a.environment !== undefined) job.environment = a.environment;
  job.permissions = a.permissions;
  if (a.concurrency) job.concurrency = a.concurrency;
  job.env = {
    DEFAULT_BRANCH: plain("${{ github.event.repository.default_branch }}"),
    GH_AW_MCP_LOG_DIR: "/tmp/gh-aw/mcp-logs/safeoutputs",
    GH_AW_WORKFLOW_ID_SANITIZED: ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase(),
    ...a.env,
  };
  job.outputs = {
    has_patch: plain("${{ steps.collect_output.outputs.has_patch }}"),
    model: plain("${{ needs.activation.outputs.model }}"),
    output: plain("${{ steps.collect_output.outputs.output }}"),
    output_types: plain("${{ steps.collect_output.outputs.output_types }}"),
    ...TRACE_OUTPUTS,
  };
  return job;
}

/** Builds the threat-detection job. */
export function detectionJob(
  ctx: JobCtx,
  install: string,
  engineDisplay: string,
  secrets: string[],
): JobPlan {
  const steps: StepPlan[] = [...setupSteps(ctx, true), ...agentOutputSteps(ctx)];
  steps.push(scriptStep(ctx, "Prepare threat detection files", "setup_threat_detection", {
    id: "detection_guard",
    env: { WORKFLOW_NAME: dq(ctx.name), HAS_PATCH: plain("${{ needs.agent.outputs.has_patch }}") },
  }));
  steps.push({ name: `Install ${engineDisplay}`, run: plain(install) });
  steps.push(shStep("Install AWF binary", "install_awf_binary", VERSIONS.awf));
  const env: Record<string, YValue> = {};
  for (const s of secrets) env[s] = plain(`\${{ secrets.${s} }}`);
  steps.push({
    name: `Execute ${engineDisplay}`,
    if: plain("always() && steps.detection_guard.outputs.run_detection == 'true'"),
    "continue-on-error": true,
    id: "detection_agentic_execution",
    "timeout-minutes": 20,
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/run_threat_detection.sh"'),
    env,
  });
  steps.push(
    scriptStep(ctx, "Parse threat detection results", "parse_threat_detection_results", {
      id: "detection_conclusion",
      if: plain("always()"),
    }),
  );
  steps.push({
    name: "Upload threat detection log",
    if: plain("always()"),
    "continue-on-error": true,
    uses: plain(ctx.refs.upload),
    with: {
      name: "detection",
      path: "/tmp/gh-aw/threat-detection/detection.log",
      "if-no-files-found": "ignore",
    },
  });
  return {
    needs: ["activation", "agent"],
    if: folded(
      "always() && needs.agent.result != 'skipped' && (needs.agent.outputs.output_types != '' || needs.agent.outputs.has_patch == 'true')\n",
    ),
    "runs-on": "ubuntu-latest",
    permissions: { contents: "read" },
    outputs: {
      detection_conclusion: plain("${{ steps.detection_conclusion.outputs.conclusion }}"),
      detection_reason: plain("${{ steps.detection_conclusion.outputs.reason }}"),
      detection_success: plain("${{ steps.detection_conclusion.outputs.success }}"),
      ...TRACE_OUTPUTS,
    },
    steps,
  };
}
