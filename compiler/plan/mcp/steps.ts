/** The MCP gateway steps of the agent job: GitHub lockdown detection, gateway start/stop, CLI mounts. */
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { scriptBody, targetOf } from "../steps.ts";
import { STEP_PRIORITY } from "../jobs/custom.ts";
import { gatewayImage } from "./images.ts";
import { lit, litBareBlanks, litPadded, plain, sq, Styled, type YValue } from "../../yaml/writer.ts";
import { bareBlankLines, gatewayScript, withoutMarkers } from "./gateway_script.ts";
import { gatewayEnv, lockdownDetected } from "./config.ts";
import { type GithubTool, githubToolConfig } from "./github.ts";
import { mcpScriptsLogSteps, mcpScriptsSteps } from "./scripts.ts";
import { objectOf } from "../../source/values.ts";

/** `with.script` of the CLI-mount step (its globals setup passes no `getOctokit`). */
const MOUNT_SCRIPT =
  "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
  "setupGlobals(core, github, context, exec, io);\n" +
  "const { main } = require('${{ runner.temp }}/gh-aw/actions/mount_mcp_as_cli.cjs');\nawait main();\n";

const GATEWAY_OUTPUT = (k: string) => plain(`\${{ steps.start-mcp-gateway.outputs.${k} }}`);

/**
 * "Determine automatic lockdown mode for GitHub MCP Server": when the GitHub tool is on and its guard
 * policy (`min-integrity` / `allowed-repos`) is left to be chosen from the repository's visibility;
 * otherwise "Parse integrity filter lists" (and "Stop DIFC Proxy") take its place.
 */
export function lockdownSteps(agentInput: AgentInput): StepPlan[] {
  const gh = githubToolConfig(agentInput);
  if (!gh || !lockdownDetected(agentInput)) return guardListSteps(agentInput);
  const env: Record<string, YValue> = {
    GH_AW_GITHUB_TOKEN: plain("${{ secrets.GH_AW_GITHUB_TOKEN }}"),
    GH_AW_GITHUB_MCP_SERVER_TOKEN: plain("${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN }}"),
  };
  // A configured policy is passed on (the step then only reports the repository's visibility).
  if (gh.guardConfigured && gh.minIntegrity !== undefined) {
    env.GH_AW_GITHUB_MIN_INTEGRITY = sq(gh.minIntegrity);
  }
  if (gh.guardConfigured && Array.isArray(gh.repos)) env.GH_AW_GITHUB_REPOS = sq(JSON.stringify(gh.repos));
  return [{
    name: "Determine automatic lockdown mode for GitHub MCP Server",
    id: "determine-automatic-lockdown",
    // gh-aw resolves this action through its "source" pin; the comment names both versions.
    uses: plain(`${agentInput.ctx.refs.githubScript} (source v9)`),
    env,
    with: {
      script: lit(
        "const determineAutomaticLockdown = require('${{ runner.temp }}/gh-aw/actions/determine_automatic_lockdown.cjs');\n" +
          "await determineAutomaticLockdown(github, context, core);\n",
      ),
    },
  }, ...(gh.guardConfigured ? guardListSteps(agentInput) : [])];
}

/** The MCP Scripts server steps, "Start MCP Gateway" and "Mount MCP servers as CLIs". */
export function mcpGatewaySteps(agentInput: AgentInput): StepPlan[] {
  const env: Record<string, YValue> = {};
  for (const [k, v] of gatewayEnv(agentInput)) env[k] = plain(v);
  const script = gatewayScript(agentInput);
  const bare = bareBlankLines(script);
  return [
    ...mcpScriptsSteps(agentInput),
    {
      name: "Start MCP Gateway",
      id: "start-mcp-gateway",
      env,
      // A script ending in a blank line keeps it as an indented line under a plain `|`.
      run: script.endsWith("\n\n")
        ? litPadded(script.slice(0, -1))
        : litBareBlanks(withoutMarkers(script), bare),
    },
    {
      name: "Mount MCP servers as CLIs",
      id: "mount-mcp-clis",
      "continue-on-error": true,
      env: {
        MCP_GATEWAY_API_KEY: GATEWAY_OUTPUT("gateway-api-key"),
        MCP_GATEWAY_DOMAIN: GATEWAY_OUTPUT("gateway-domain"),
        MCP_GATEWAY_PORT: GATEWAY_OUTPUT("gateway-port"),
      },
      uses: plain(agentInput.ctx.refs.githubScript),
      with: { script: lit(MOUNT_SCRIPT) },
    },
  ];
}

/** "Stop MCP Gateway", after the engine ran. */
export function mcpGatewayStopSteps(_a: AgentInput): StepPlan[] {
  return [{
    name: "Stop MCP Gateway",
    if: plain("always()"),
    "continue-on-error": true,
    env: {
      MCP_GATEWAY_PORT: GATEWAY_OUTPUT("gateway-port"),
      MCP_GATEWAY_API_KEY: GATEWAY_OUTPUT("gateway-api-key"),
      GATEWAY_PID: GATEWAY_OUTPUT("gateway-pid"),
    },
    run: lit('bash "${RUNNER_TEMP}/gh-aw/actions/stop_mcp_gateway.sh" "$GATEWAY_PID"\n'),
  }];
}

/** "Parse MCP Scripts logs…" (when configured) and "Parse MCP Gateway logs for step summary" (its outputs feed the job's effective-token outputs). */
export function mcpGatewayLogSteps(agentInput: AgentInput): StepPlan[] {
  return [...mcpScriptsLogSteps(agentInput), {
    name: "Parse MCP Gateway logs for step summary",
    if: plain("always()"),
    id: "parse-mcp-gateway",
    uses: plain(agentInput.ctx.refs.githubScript),
    with: { script: scriptBody("parse_mcp_gateway_log") },
  }];
}

/** The `allow-only` policy the CLI/DIFC proxies enforce (the workflow's guard policy, else everything). */
function proxyPolicy(gh: GithubTool): string {
  if (!gh.guardConfigured) return JSON.stringify({ "allow-only": { repos: "all", "min-integrity": "none" } });
  return JSON.stringify({
    "allow-only": { "min-integrity": gh.minIntegrity ?? "none", repos: gh.repos ?? "all" },
  });
}

/** What the proxies of an isolated-network release learn of the runner's GitHub host (GHES, proxy URLs). */
const PROXY_HOST_ENV: Record<string, YValue> = {
  GITHUB_API_URL: plain("${{ github.api_url }}"),
  GH_HOST: plain("${{ env.GH_HOST }}"),
  GITHUB_HOST: plain("${{ env.GITHUB_HOST }}"),
  GITHUB_ENTERPRISE_HOST: plain("${{ env.GITHUB_ENTERPRISE_HOST }}"),
  GITHUB_GRAPHQL_URL: plain("${{ env.GITHUB_GRAPHQL_URL }}"),
  GITHUB_COPILOT_BASE_URL: plain("${{ env.GITHUB_COPILOT_BASE_URL }}"),
  GH_AW_NETWORK_ISOLATION: sq("true"),
};

function proxyEnv(agentInput: AgentInput, gh: GithubTool, kind: "CLI" | "DIFC"): Record<string, YValue> {
  const isolated = targetOf(agentInput.ctx).jobs.agent.gateway?.proxyHostEnv === true;
  return {
    GH_TOKEN: plain(gh.token),
    GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
    ...(isolated ? PROXY_HOST_ENV : {}),
    [`${kind}_PROXY_POLICY`]: sq(proxyPolicy(gh)),
    [`${kind}_PROXY_IMAGE`]: sq(gatewayImage(agentInput.ctx, agentInput.frontmatter)),
  };
}

/** Whether `gh` runs through the CLI proxy (`tools.github.mode: gh-proxy`). */
function ghProxy(agentInput: AgentInput): GithubTool | undefined {
  const gh = githubToolConfig(agentInput);
  return gh && gh.mode === "gh-proxy" ? gh : undefined;
}

/** "Start CLI Proxy", right before the engine runs. */
export function cliProxyStartSteps(agentInput: AgentInput): StepPlan[] {
  const gh = ghProxy(agentInput);
  if (!gh) return [];
  return [{
    name: "Start CLI Proxy",
    env: proxyEnv(agentInput, gh, "CLI"),
    run: lit('bash "${RUNNER_TEMP}/gh-aw/actions/start_cli_proxy.sh"\n'),
  }];
}

/** "Stop CLI Proxy", right after the engine ran. */
export function cliProxyStopSteps(agentInput: AgentInput): StepPlan[] {
  if (!ghProxy(agentInput)) return [];
  return [{
    name: "Stop CLI Proxy",
    if: plain("always()"),
    "continue-on-error": true,
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/stop_cli_proxy.sh"'),
  }];
}

/** Whether the workflow's own steps run behind the DIFC proxy (guarded `gh-proxy` mode, steps calling GitHub). */
function difcProxy(agentInput: AgentInput): GithubTool | undefined {
  const gh = githubToolConfig(agentInput);
  // Only steps that call GitHub (they carry a GH_TOKEN) are filtered.
  const callsGitHub = agentInput.customSteps.some((s) => JSON.stringify(s).includes("GH_TOKEN"));
  // Later releases filter them whatever serves the agent's GitHub tools.
  const anyMode = targetOf(agentInput.ctx).jobs.agent.gateway?.difcProxyAnyMode === true;
  return gh && (gh.mode === "gh-proxy" || anyMode) && gh.guardConfigured && callsGitHub ? gh : undefined;
}

/** "Start DIFC Proxy", before the workflow's own steps. */
export function difcProxyStartSteps(agentInput: AgentInput): StepPlan[] {
  const gh = difcProxy(agentInput);
  if (!gh) return [];
  return [{
    name: "Start DIFC Proxy",
    env: proxyEnv(agentInput, gh, "DIFC"),
    run: lit('bash "${RUNNER_TEMP}/gh-aw/actions/start_difc_proxy.sh"\n'),
  }];
}

/** What a workflow step needs to reach GitHub through the DIFC proxy (as gh-aw injects it). */
const DIFC_STEP_ENV: Record<string, YValue> = {
  GH_HOST: plain("${{ env.GH_HOST || 'github.com' }}"),
  GH_REPO: plain("${{ github.repository }}"),
  GITHUB_API_URL: plain("https://localhost:18443/api/v3"),
  GITHUB_GRAPHQL_URL: plain("https://localhost:18443/api/graphql"),
  NODE_EXTRA_CA_CERTS: plain("/tmp/gh-aw/proxy-logs/proxy-tls/ca.crt"),
};

/** Whether the workflow's own steps run behind the DIFC proxy (then gh-aw re-writes them, see below). */
export function stepsRunThroughDifcProxy(agentInput: AgentInput): boolean {
  return difcProxy(agentInput) !== undefined;
}

/**
 * The workflow's own steps as they run while the DIFC proxy is up: gh-aw parses the block again, merges the
 * proxy's endpoints into each step's `env` (over its own, keys sorted) and writes each step with its keys in
 * `PriorityStepFields` order (name, id, if, run, uses, script, env, with, then the rest sorted) and multi-line
 * scripts with empty blank lines. Unchanged when no DIFC proxy runs.
 */
export function stepsThroughDifcProxy(agentInput: AgentInput, steps: StepPlan[]): StepPlan[] {
  if (!difcProxy(agentInput)) return steps;
  // Later releases: the section's last scalar lost its final newline in the round trip, also a value that
  // was quoted then (a block now).
  const trim = targetOf(agentInput.ctx).jobs.agent.trimsQuotedLastScalar === true;
  const lastKey = (st: StepPlan) => Object.keys(st).sort().at(-1);
  return steps.map((step, i) => {
    const key = trim && i === steps.length - 1 ? lastKey(step) : undefined;
    const last = key !== undefined ? step[key] : undefined;
    const lastText = last instanceof Styled ? last.value : typeof last === "string" ? last : undefined;
    if (key !== undefined && lastText?.includes("\n") && lastText.endsWith("\n")) {
      step = { ...step, [key]: new Styled(lastText.slice(0, -1), "literal", true) };
    }
    const merged: Record<string, YValue> = {
      ...objectOf<YValue>(step.env),
      ...DIFC_STEP_ENV,
    };
    const withEnv: StepPlan = {
      ...step,
      env: Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]])),
    };
    const rest = Object.keys(withEnv).filter((k) => !STEP_PRIORITY.includes(k)).sort();
    const out: StepPlan = {};
    for (const k of [...STEP_PRIORITY.filter((k) => k in withEnv), ...rest]) {
      const v = withEnv[k];
      out[k] = k === "run" && v instanceof Styled && v.value.includes("\n")
        ? new Styled(v.value.replace(/^[ \t]+$/gm, ""), "literal", true)
        : k === "with"
        ? literalIfMultiline(v as YValue)
        : v;
    }
    return out;
  });
}

/** goccy's `UseLiteralStyleIfMultiline`: every multi-line string a literal block, at any depth. */
function literalIfMultiline(v: YValue): YValue {
  const text = v instanceof Styled ? v.value : typeof v === "string" ? v : undefined;
  if (text !== undefined) {
    return text.includes("\n") ? new Styled(text.replace(/^[ \t]+$/gm, ""), "literal", true) : v;
  }
  if (Array.isArray(v)) return v.map(literalIfMultiline);
  if (v && typeof v === "object" && !(v instanceof Styled) && v.constructor === Object) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, literalIfMultiline(x as YValue)]));
  }
  return v;
}

/** "Parse integrity filter lists" (user/label lists of a configured guard policy) and "Stop DIFC Proxy". */
function guardListSteps(agentInput: AgentInput): StepPlan[] {
  const gh = githubToolConfig(agentInput);
  if (!gh?.guardConfigured) return [];
  const raw = gh.raw;
  const extra = (k: string) => {
    const v = raw[k];
    return Array.isArray(v) ? v.map(String).join(",") : typeof v === "string" ? v : undefined;
  };
  const env: Record<string, YValue> = {};
  const blocked = extra("blocked-users");
  if (blocked) env.GH_AW_BLOCKED_USERS_EXTRA = blocked;
  env.GH_AW_BLOCKED_USERS_VAR = plain("${{ vars.GH_AW_GITHUB_BLOCKED_USERS || '' }}");
  const trusted = extra("trusted-users");
  if (trusted) env.GH_AW_TRUSTED_USERS_EXTRA = trusted;
  env.GH_AW_TRUSTED_USERS_VAR = plain("${{ vars.GH_AW_GITHUB_TRUSTED_USERS || '' }}");
  const labels = extra("approval-labels");
  if (labels) env.GH_AW_APPROVAL_LABELS_EXTRA = labels;
  env.GH_AW_APPROVAL_LABELS_VAR = plain("${{ vars.GH_AW_GITHUB_APPROVAL_LABELS || '' }}");
  const steps: StepPlan[] = [{
    name: "Parse integrity filter lists",
    id: "parse-guard-vars",
    env,
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/parse_guard_list.sh"'),
  }];
  if (difcProxy(agentInput)) {
    steps.push({
      name: "Stop DIFC Proxy",
      if: plain("always()"),
      "continue-on-error": true,
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/stop_difc_proxy.sh"'),
    });
  }
  return steps;
}

/** Whether `tools.agentic-workflows` is on (the `gh aw` MCP server). */
function agenticWorkflowsOn(agentInput: AgentInput): boolean {
  const v = agentInput.merged.tools["agentic-workflows"];
  return v !== undefined && v !== false;
}

/**
 * Dev mode builds the `gh aw` MCP server's image from the checked-out source, right after the checkout:
 * "Setup Go for CLI build", "Build gh-aw CLI", "Setup Docker Buildx", "Build gh-aw Docker image".
 */
export function agenticWorkflowsBuildSteps(agentInput: AgentInput): StepPlan[] {
  if (!agenticWorkflowsOn(agentInput) || agentInput.ctx.actionMode !== "dev" || !agentInput.mcpRefs) {
    return [];
  }
  return [
    {
      name: "Setup Go for CLI build",
      uses: plain(agentInput.mcpRefs.setupGo),
      with: { "go-version-file": "go.mod", cache: true },
    },
    {
      name: "Build gh-aw CLI",
      run: lit(
        'echo "Building gh-aw CLI for linux/amd64..."\nmkdir -p dist\nVERSION=$(git describe --tags --always --dirty)\n' +
          "CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build \\\n" +
          '  -ldflags "-s -w -X main.version=${VERSION}" \\\n  -o dist/gh-aw-linux-amd64 \\\n  ./cmd/gh-aw\n' +
          "# Copy binary to root for direct execution in user-defined steps\ncp dist/gh-aw-linux-amd64 ./gh-aw\n" +
          'chmod +x ./gh-aw\necho "✓ Built gh-aw CLI successfully"\n',
      ),
    },
    { name: "Setup Docker Buildx", uses: plain(agentInput.mcpRefs.buildx) },
    {
      name: "Build gh-aw Docker image",
      uses: plain(agentInput.mcpRefs.buildPush),
      with: {
        context: ".",
        platforms: "linux/amd64",
        push: false,
        load: true,
        tags: "localhost/gh-aw:dev",
        "build-args": lit("BINARY=dist/gh-aw-linux-amd64\n"),
      },
    },
  ];
}

/** Locates the `gh aw` binary and copies it where the MCP server container mounts it. */
const COPY_GH_AW = "# Copy the gh-aw binary to ${RUNNER_TEMP}/gh-aw for MCP server containerization\n" +
  'mkdir -p "${RUNNER_TEMP}/gh-aw"\nGH_AW_BIN=""\nGH_AW_BIN=$(command -v gh-aw 2>/dev/null) || true\n' +
  'if [ -z "$GH_AW_BIN" ]; then\n' +
  "  GH_AW_BIN=$(find \"${HOME}/.local/share/gh/extensions/gh-aw\" -name 'gh-aw' -type f 2>/dev/null | head -1) || true\nfi\n" +
  'if [ -z "$GH_AW_BIN" ] && [ -n "${GH_CONFIG_DIR:-}" ]; then\n' +
  "  GH_AW_BIN=$(find \"${GH_CONFIG_DIR}/extensions/gh-aw\" -name 'gh-aw' -type f 2>/dev/null | head -1) || true\nfi\n" +
  'if [ -z "$GH_AW_BIN" ] && [ -f "${GITHUB_WORKSPACE}/gh-aw" ]; then\n  GH_AW_BIN="${GITHUB_WORKSPACE}/gh-aw"\nfi\n' +
  'if [ -n "$GH_AW_BIN" ] && [ -f "$GH_AW_BIN" ]; then\n  cp "$GH_AW_BIN" "${RUNNER_TEMP}/gh-aw/gh-aw"\n' +
  '  chmod +x "${RUNNER_TEMP}/gh-aw/gh-aw"\n  echo "Copied gh-aw binary to ${RUNNER_TEMP}/gh-aw/gh-aw"\nelse\n' +
  '  echo "::error::Failed to find gh-aw binary for MCP server"\n  exit 1\nfi\n';

/** Installs `gh aw` (dev: from source) before the MCP servers start, and stages its binary for the server. */
export function agenticWorkflowsInstallSteps(agentInput: AgentInput): StepPlan[] {
  if (!agenticWorkflowsOn(agentInput)) return [];
  if (agentInput.ctx.actionMode === "dev") {
    return [ghAwFromSource(), {
      name: "Copy gh-aw binary for MCP server",
      run: lit("gh aw --version\n" + COPY_GH_AW),
    }];
  }
  // Release mode installs the released extension through the release's setup-cli action.
  if (!agentInput.setupCliRef || !targetOf(agentInput.ctx).jobs.agent.gateway?.releaseInstallsGhAw) return [];
  return [{
    name: "Install gh-aw extension",
    uses: plain(agentInput.setupCliRef),
    with: {
      version: sq(targetOf(agentInput.ctx).version),
      "github-token": plain(githubToolConfig(agentInput)?.token ?? DEFAULT_MCP_TOKEN),
    },
  }, {
    name: "Copy gh-aw binary for MCP Server",
    run: lit("gh aw --version\n" + COPY_GH_AW.replaceAll("MCP server", "MCP Server")),
  }];
}

/** The GitHub MCP server's default token. */
const DEFAULT_MCP_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** "Build and install gh-aw CLI from source" (dev mode). */
function ghAwFromSource(): StepPlan {
  return {
    name: "Build and install gh-aw CLI from source",
    run: lit("gh extension remove aw || true\nmake build\ngh extension install .\ngh aw version\n"),
    env: { GH_TOKEN: plain("${{ github.token }}") },
  };
}
