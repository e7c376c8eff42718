/**
 * The shell script that runs an engine inside the AWF firewall (agent job), as gh-aw v0.76 writes it:
 * the AWF config file (allowed domains, API proxy with model aliases, container tag), the tool-cache and
 * Docker-host probes, then `sudo -E awf … -- /bin/bash -c '<engine command>'` teeing into the stdio log.
 */
import type { Firewall } from "../../source/sandbox.ts";
import { VERSIONS } from "../../data/versions.ts";
import { AWF_MODEL_ALIASES } from "./awf_models.ts";
import {
  awfReadsProviders,
  costTableJson,
  hasCosts,
  type ModelCatalog,
  proxyAliases,
} from "../../source/model_catalog.ts";

/** Inputs of the AWF config file. */
export interface AwfConfigInput {
  allowDomains: string[];
  blockDomains?: string[];
  maxRuns?: number;
  maxEffectiveTokens?: number;
  /** API proxy targets (e.g. `{ gemini: { host } }`). */
  targets?: Record<string, { host: string }>;
  /** `sandbox.agent` release and pinned images; the targeted release when absent. */
  firewall?: Firewall;
  /** The workflow's model aliases and per-model costs. */
  models?: ModelCatalog;
}

/**
 * Shell lines run after the AWF config is written and before `awf` starts (agent and threat detection alike):
 * merge model multipliers, keep a copy of the config for the artifact, and work out the Docker-host path prefix
 * and the tool-cache mount.
 */
export const AWF_HOST_PREPARATION: readonly string[] = [
  'GH_AW_MODEL_MULTIPLIERS_PATH="/tmp/gh-aw/model_multipliers.json" node "${RUNNER_TEMP}/gh-aw/actions/merge_awf_model_multipliers.cjs"',
  'cp "${RUNNER_TEMP}/gh-aw/awf-config.json" /tmp/gh-aw/awf-config.json',
  'GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS=""',
  'if [[ "${DOCKER_HOST:-}" =~ ^tcp:// ]]; then',
  '  GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS="--docker-host-path-prefix /tmp/gh-aw"',
  "fi",
  'GH_AW_TOOL_CACHE_MOUNT=""',
  'GH_AW_TOOL_CACHE="${RUNNER_TOOL_CACHE:-/opt/hostedtoolcache}"',
  'if [ -d "$GH_AW_TOOL_CACHE" ]; then',
  '  if [[ "$GH_AW_TOOL_CACHE" != /opt/* ]]; then',
  '    GH_AW_TOOL_CACHE_MOUNT="$GH_AW_TOOL_CACHE:$GH_AW_TOOL_CACHE:ro"',
  "  fi",
  'elif [ -d "/home/runner/work/_tool" ]; then',
  '  GH_AW_TOOL_CACHE_MOUNT="/home/runner/work/_tool:/home/runner/work/_tool:ro"',
  "fi",
  "# shellcheck disable=SC1003",
];

/** The AWF config JSON (one line). */
export function awfConfigJson(config: AwfConfigInput): string {
  const network: Record<string, unknown> = { allowDomains: config.allowDomains };
  if (config.blockDomains?.length) network.blockDomains = config.blockDomains;
  const apiProxy: Record<string, unknown> = {
    enabled: true,
    enableTokenSteering: true,
    maxRuns: config.maxRuns ?? 500,
    maxEffectiveTokens: config.maxEffectiveTokens ?? 25000000,
  };
  if (config.targets) apiProxy.targets = config.targets;
  apiProxy.models = proxyAliases(AWF_MODEL_ALIASES, config.models);
  if (hasCosts(config.models) && awfReadsProviders(config.firewall?.version ?? VERSIONS.awf)) {
    apiProxy.providers = JSON.parse(costTableJson(config.models)).providers;
  }
  return JSON.stringify({
    $schema: `https://github.com/github/gh-aw-firewall/releases/download/${
      config.firewall?.version ?? VERSIONS.awf
    }/awf-config.schema.json`,
    network,
    apiProxy,
    container: { imageTag: config.firewall?.imageTag ?? VERSIONS.awfImageTag },
  });
}

/** Inputs of the AWF run script. */
export interface AwfScriptInput {
  /** Shell lines run before the stdio log is created (step summary, node resolution…). */
  setup: string[];
  config: AwfConfigInput;
  /** Extra `--mount`/`--allow-host-service-ports` arguments (already quoted). */
  extraArgs: string[];
  tty: boolean;
  /** Variables hidden from the agent container (sorted here). */
  excludeEnv: string[];
  /** `--mount` arguments of `sandbox.agent.mounts`, after the exclusions. */
  mounts?: string[];
  /** Whether the GitHub CLI proxy sidecar is used. */
  cliProxy: boolean;
  /** The command run inside the container (unquoted; single quotes are escaped here). */
  command: string;
}

/** The tool-cache PATH set-up that prefixes every engine command. */
export const TOOL_PATH_SETUP =
  `GH_AW_TOOL_CACHE="\${RUNNER_TOOL_CACHE:-/opt/hostedtoolcache}"; export PATH="$(find "$GH_AW_TOOL_CACHE" /opt/hostedtoolcache /home/runner/work/_tool -maxdepth 5 -type d -name bin 2>/dev/null | tr '\\n' ':')$PATH"; [ -n "$GOROOT" ] && export PATH="$GOROOT/bin:$PATH" || true`;

/** {@link TOOL_PATH_SETUP} then the node runtime resolution the harness scripts run with. */
export const NODE_PATH_SETUP =
  `${TOOL_PATH_SETUP} && GH_AW_NODE_EXEC="\${GH_AW_NODE_BIN:-}"; if [ -z "$GH_AW_NODE_EXEC" ] || [ ! -x "$GH_AW_NODE_EXEC" ]; then GH_AW_NODE_EXEC="$(command -v node 2>/dev/null || true)"; fi; if [ -z "$GH_AW_NODE_EXEC" ]; then echo "node runtime missing on this runner — check runtimes.node in workflow YAML" >&2; exit 127; fi; "$GH_AW_NODE_EXEC"`;

/** `PATH` prefix exposing the MCP servers mounted as CLI commands. */
export const MCP_CLI_PATH = `export PATH="\${RUNNER_TEMP}/gh-aw/mcp-cli/bin:$PATH"`;

const LOG = "/tmp/gh-aw/agent-stdio.log";

/** The whole `run:` script of the engine execution step (ends with a newline). */
export function awfScript(script: AwfScriptInput): string {
  const awf = [
    'sudo -E awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}"',
    '--mount "${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro" --mount "${RUNNER_TEMP}/gh-aw:/host${RUNNER_TEMP}/gh-aw:ro"',
    ...script.extraArgs,
    '${GH_AW_TOOL_CACHE_MOUNT:+--mount "$GH_AW_TOOL_CACHE_MOUNT"} ${GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS}',
    ...(script.tty ? ["--tty"] : []),
    "--env-all",
    ...[...new Set(script.excludeEnv)].sort().map((e) => `--exclude-env ${e}`),
    ...(script.mounts ?? []),
    "--log-level info --proxy-logs-dir /tmp/gh-aw/sandbox/firewall/logs --audit-dir /tmp/gh-aw/sandbox/firewall/audit --enable-host-access --allow-host-ports 80,443,8080 --skip-pull",
    ...(script.cliProxy
      ? ["--difc-proxy-host host.docker.internal:18443 --difc-proxy-ca-cert /tmp/gh-aw/difc-proxy-tls/ca.crt"]
      : []),
  ].join(" ");
  return [
    "set -o pipefail",
    `printf '%s' "$(date +%s%3N)" > /tmp/gh-aw/agent_cli_start_ms.txt`,
    ...script.setup,
    `(umask 177 && touch ${LOG})`,
    `printf '%s\\n' '${awfConfigJson(script.config)}' > "\${RUNNER_TEMP}/gh-aw/awf-config.json"`,
    ...AWF_HOST_PREPARATION,
    `${awf} \\`,
    `  -- /bin/bash -c '${script.command.replace(/'/g, "'\\''")}' 2>&1 | tee -a ${LOG}`,
  ].join("\n") + "\n";
}
