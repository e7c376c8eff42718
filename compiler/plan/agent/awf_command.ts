/**
 * The shell script that runs an engine inside the AWF firewall (agent job), as gh-aw v0.76 writes it:
 * the AWF config file (allowed domains, API proxy with model aliases, container tag), the tool-cache and
 * Docker-host probes, then `sudo -E awf … -- /bin/bash -c '<engine command>'` teeing into the stdio log.
 * A target's {@link AwfRunStyle} (v0.87) runs it rootless with an AI-credit limit instead.
 */
import type { Firewall } from "../../source/sandbox.ts";
import type { AwfRunStyle } from "../../targets/target.ts";
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
  /** The release's way of running the firewall; undefined: v0.76.1's. */
  style?: AwfRunStyle;
  /** The workflow's own `max-ai-credits` (a release with {@link AwfRunStyle}). */
  maxAiCredits?: number;
  /** The workflow's own `max-turn-cache-misses` (else the release's default). */
  maxCacheMisses?: number;
  /** Whether the GitHub CLI proxy sidecar runs (the firewall attaches to its network too). */
  cliProxy?: boolean;
  /** Digests of the firewall images by role (`actions-lock.json` `containers`). */
  imageDigests?: Readonly<Record<string, string>>;
  /** `sandbox.agent` container runtime settings written into `container` (`containerRuntime`, `agentTimeout`). */
  containerExtra?: Record<string, unknown>;
  /** The run has no MCP gateway to attach to (threat detection): no `network.isolation`/`topologyAttach`. */
  detached?: boolean;
}

/** Stands for the shell-expanded credit limit in the config JSON until it is quoted for the shell. */
const CREDITS_TOKEN = 987654321.123;

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
  const style = config.style;
  const network: Record<string, unknown> = { allowDomains: config.allowDomains };
  if (config.blockDomains?.length) network.blockDomains = config.blockDomains;
  if (style && !config.detached) {
    network.isolation = true;
    network.topologyAttach = config.cliProxy
      ? [style.topologyAttach, style.cliProxyContainer]
      : [style.topologyAttach];
  }
  const apiProxy: Record<string, unknown> = {
    enabled: true,
    enableTokenSteering: true,
    maxRuns: config.maxRuns ?? 500,
  };
  if (!style) apiProxy.maxEffectiveTokens = config.maxEffectiveTokens ?? 25000000;
  else if (config.maxAiCredits !== undefined) {
    apiProxy.maxCacheMisses = config.maxCacheMisses ?? style.maxCacheMisses;
    apiProxy.maxAiCredits = config.maxAiCredits;
  } else {
    apiProxy.maxAiCredits = CREDITS_TOKEN;
    apiProxy.maxCacheMisses = config.maxCacheMisses ?? style.maxCacheMisses;
  }
  if (config.targets) apiProxy.targets = config.targets;
  apiProxy.models = proxyAliases(style?.modelAliases ?? AWF_MODEL_ALIASES, config.models);
  if (hasCosts(config.models) && awfReadsProviders(config.firewall?.version ?? VERSIONS.awf)) {
    apiProxy.providers = JSON.parse(costTableJson(config.models)).providers;
  }
  const tag = config.firewall?.imageTag ?? VERSIONS.awfImageTag;
  const digests = (style?.imageTagDigests ?? []).flatMap((role) => {
    const d = config.imageDigests?.[role];
    return d ? [`${role}=${d}`] : [];
  });
  const out: Record<string, unknown> = {
    $schema: `https://github.com/github/gh-aw-firewall/releases/download/${
      config.firewall?.version ?? VERSIONS.awf
    }/awf-config.schema.json`,
    network,
    apiProxy,
    container: { imageTag: [tag, ...digests].join(","), ...config.containerExtra },
  };
  if (style) out.logging = { proxyLogsDir: style.logging.proxyLogsDir, auditDir: style.logging.auditDir };
  return JSON.stringify(out);
}

/**
 * The line writing the AWF config: single-quoted as is, or — when the credit limit is the shell's
 * `GH_AW_MAX_AI_CREDITS` — double-quoted with the variable expanded.
 */
function writeConfigLines(config: AwfConfigInput, creditsDefault?: string): string[] {
  const json = awfConfigJson(config);
  const target = '> "${RUNNER_TEMP}/gh-aw/awf-config.json"';
  if (!config.style) return [`printf '%s\\n' '${json}' ${target}`];
  if (config.maxAiCredits !== undefined) {
    return ["# shellcheck disable=SC2016", `printf '%s\\n' '${json}' ${target}`];
  }
  const quoted = json.replace(/[\\"$`]/g, (c) => `\\${c}`).replace(
    String(CREDITS_TOKEN),
    "${GH_AW_MAX_AI_CREDITS}",
  );
  return [
    `GH_AW_MAX_AI_CREDITS="\${GH_AW_MAX_AI_CREDITS:-${creditsDefault ?? config.style.maxAiCreditsDefault}}"`,
    `printf '%s\\n' "${quoted}" ${target}`,
  ];
}

/**
 * {@link AWF_HOST_PREPARATION} of a release with {@link AwfRunStyle}: the models file path, the Docker host
 * passed on (and the chroot config patched) for a TCP daemon, and a tool cache that must be set.
 */
function rootlessHostPreparation(chrootPatch: "node" | "jq"): string[] {
  return [
    'cp "${RUNNER_TEMP}/gh-aw/awf-config.json" /tmp/gh-aw/awf-config.json',
    'export GH_AW_MODELS_JSON_PATH="/tmp/gh-aw/models.json"',
    'GH_AW_DOCKER_HOST=""',
    'if [[ "${DOCKER_HOST:-}" =~ ^tcp:// ]]; then',
    '  GH_AW_DOCKER_HOST="${DOCKER_HOST}"',
    "fi",
    'if [[ "${DOCKER_HOST:-}" =~ ^tcp:// ]]; then',
    ...(chrootPatch === "node" ? [CHROOT_PATCH_NODE] : CHROOT_PATCH_JQ),
    "fi",
    'GH_AW_TOOL_CACHE_MOUNT=""',
    'GH_AW_TOOL_CACHE="${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE must be set}"',
    'if [ -d "$GH_AW_TOOL_CACHE" ]; then',
    '  if [[ "$GH_AW_TOOL_CACHE" != /opt/* ]]; then',
    '    GH_AW_TOOL_CACHE_MOUNT="$GH_AW_TOOL_CACHE:$GH_AW_TOOL_CACHE:ro"',
    "  fi",
    "fi",
    "# shellcheck disable=SC1003,SC2016,SC2086",
  ];
}

/** Where the chroot's binaries come from and the identity's home on a split (ARC/DinD) filesystem. */
const CHROOT_SOURCE = "${RUNNER_TEMP}/gh-aw";
const CHROOT_HOME = "${RUNNER_TEMP}/gh-aw/home";
const CONFIG_PATH = '"${RUNNER_TEMP}/gh-aw/awf-config.json"';

/** The agent's chroot patch: the setup action's Node.js helper. */
const CHROOT_PATCH_NODE =
  `  GH_AW_CHROOT_BINARIES_SOURCE_PATH="${CHROOT_SOURCE}" GH_AW_CHROOT_IDENTITY_HOME="${CHROOT_HOME}" node "\${RUNNER_TEMP}/gh-aw/actions/patch_awf_chroot_config.cjs"`;

/**
 * The review's chroot patch: `jq` sets `chroot` (binaries source, the runner user's identity) and the result is
 * written back to the config and to the copy under the binaries source (the same file there).
 */
const CHROOT_PATCH_JQ: readonly string[] = [
  `  _GH_AW_CHROOT_JSON=$(jq -c --arg src "${CHROOT_SOURCE}" --arg user "$(id -un)" --argjson uid "$(id -u)" --argjson gid "$(id -g)" --arg home "${CHROOT_HOME}" '.chroot={"binariesSourcePath":$src,"identity":{"user":$user,"uid":$uid,"gid":$gid,"home":$home}}' ${CONFIG_PATH}) || { echo "chroot config patch failed" >&2; exit 1; }`,
  `  printf '%s\\n' "$_GH_AW_CHROOT_JSON" > ${CONFIG_PATH}`,
  `  printf '%s\\n' "$_GH_AW_CHROOT_JSON" > "${CHROOT_SOURCE}/awf-config.json"`,
];

/** {@link TOOL_PATH_SETUP} of a release with {@link AwfRunStyle}: the runner's tool cache only, and Erlang's. */
const TOOL_PATH_SETUP_ROOTLESS =
  `: "\${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE must be set}"; GH_AW_TOOL_CACHE="$RUNNER_TOOL_CACHE"; export PATH="$(find "$GH_AW_TOOL_CACHE" -maxdepth 5 -type d -name bin 2>/dev/null | tr '\\n' ':')$PATH"; [ -n "$GOROOT" ] && export PATH="$GOROOT/bin:$PATH" || true; [ -n "$ERLANG_HOME" ] && export PATH="$ERLANG_HOME/bin:$PATH" || true`;

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
  /** `--container-runtime` (`sandbox.agent.runtime`, a release with {@link AwfRunStyle}). */
  containerRuntime?: string;
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
  const style = script.config.style;
  if (style) return rootlessAwfScript(script, style);
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
    ...writeConfigLines(script.config),
    ...AWF_HOST_PREPARATION,
    `${awf} \\`,
    `  -- /bin/bash -c '${script.command.replace(/'/g, "'\\''")}' 2>&1 | tee -a ${LOG}`,
  ].join("\n") + "\n";
}

/** What differs between the agent's and the review's rootless run. */
interface RootlessRole {
  /** The stdio log the run tees into. */
  log: string;
  /** The credit limit when `GH_AW_MAX_AI_CREDITS` is unset (the release's agent default when absent). */
  creditsDefault?: string;
  chrootPatch: "node" | "jq";
  /** Whether `script.command` is already escaped for single quotes. */
  quoted?: boolean;
}

/**
 * The run script of a release with {@link AwfRunStyle}: `awf` without sudo, the Docker host passed on, the
 * OIDC request variables hidden, logging in the config, and the command run with history expansion off.
 */
function rootlessAwfScript(
  script: AwfScriptInput,
  style: AwfRunStyle,
  role: RootlessRole = { log: LOG, chrootPatch: "node" },
): string {
  const awf = [
    'awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}"',
    '--mount "${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro" --mount "${RUNNER_TEMP}/gh-aw:/host${RUNNER_TEMP}/gh-aw:ro"',
    ...script.extraArgs,
    '${GH_AW_TOOL_CACHE_MOUNT:+--mount "$GH_AW_TOOL_CACHE_MOUNT"} ${GH_AW_DOCKER_HOST:+--docker-host "$GH_AW_DOCKER_HOST"}',
    ...(script.containerRuntime ? [`--container-runtime ${script.containerRuntime}`] : []),
    ...(script.tty ? ["--tty"] : []),
    "--env-all",
    ...[...new Set([...style.excludeEnv, ...script.excludeEnv])].sort().map((e) => `--exclude-env ${e}`),
    ...(script.mounts ?? []),
    "--mount /tmp/gh-aw:/tmp/gh-aw:rw --log-level info --skip-pull",
    ...(script.cliProxy
      ? [
        `--difc-proxy-host ${style.cliProxyContainer}:18443 --difc-proxy-ca-cert /tmp/gh-aw/difc-proxy-tls/ca.crt`,
      ]
      : []),
  ].join(" ");
  const escape = (text: string) => text.replace(/'/g, "'\\''");
  const command = role.quoted
    ? escape("set +o histexpand; ") +
      script.command.replace(escape(TOOL_PATH_SETUP), escape(TOOL_PATH_SETUP_ROOTLESS))
    : escape("set +o histexpand; " + script.command.replace(TOOL_PATH_SETUP, TOOL_PATH_SETUP_ROOTLESS));
  return [
    "set -o pipefail",
    `printf '%s' "$(date +%s%3N)" > /tmp/gh-aw/agent_cli_start_ms.txt`,
    ...script.setup,
    `(umask 177 && touch ${role.log})`,
    ...writeConfigLines(script.config, role.creditsDefault),
    ...rootlessHostPreparation(role.chrootPatch),
    `${awf} \\`,
    `  -- /bin/bash -c '${command}' 2>&1 | tee -a ${role.log}`,
  ].join("\n") + "\n";
}

/** Inputs of the threat-detection job's firewall run under a release with {@link AwfRunStyle}. */
export interface DetectionAwfInput {
  style: AwfRunStyle;
  /** The review's config (its own domains, no gateway, no workflow credit limit). */
  config: AwfConfigInput;
  /** Shell lines run before the log is created. */
  setup: string[];
  /** Variables hidden from the review's sandbox besides the release's own. */
  excludeEnv: string[];
  /** Whether the CLI needs a terminal (`--tty`, Claude). */
  tty: boolean;
  /** The CLI's command inside the firewall, already escaped for single quotes. */
  command: string;
  /** The review's log. */
  log: string;
}

/**
 * The threat-detection run of a release with {@link AwfRunStyle}: gh-aw builds it with the agent's command
 * builder, so it is the agent's rootless run with the review's log, budget and chroot patch.
 */
export function detectionAwfScript(input: DetectionAwfInput): string {
  return rootlessAwfScript(
    {
      setup: input.setup,
      config: input.config,
      extraArgs: [],
      tty: input.tty,
      excludeEnv: input.excludeEnv,
      cliProxy: false,
      command: input.command,
    },
    input.style,
    {
      log: input.log,
      creditsDefault: input.style.detection.maxAiCreditsDefault,
      chrootPatch: input.style.detection.chrootPatch,
      quoted: true,
    },
  );
}
