/**
 * A gh-aw release awc compiles for (`awc compile --gh-aw-version`): what differs from one release to the
 * next, per concern, in one object the planners ask — never `if (version >= …)` in a planner.
 */

/** One gh-aw release awc can compile for. */
export interface GhAwTarget {
  /** The release tag, `vX.Y.Z`; a release-mode lock pins `github/gh-aw-actions/setup` at it. */
  version: string;
  /**
   * Built-in pins of this release (`repo@tag` → commit), laid over the compiler's own table: the actions
   * gh-aw's locks of this release reference, from its `actions-lock.json`.
   */
  pins: Readonly<Record<string, string>>;
  /**
   * The tag of each action the compiler emits itself, by repository, where this release uses another one
   * than v0.76.1 (e.g. `actions/checkout` → `v7.0.1`). Actions the author writes keep their own tags.
   */
  actionTags: Readonly<Record<string, string>>;
  /** The action that sets up the `gh aw` CLI (`repo`, without the tag). */
  setupCliAction: string;
  /** Whether the lock's `gh-aw-metadata` header names the release (`compiler_version`), release mode only. */
  stampsCompilerVersion: boolean;
  /**
   * The MCP layer's images of this release: the gateway's tag (`ghcr.io/github/gh-aw-mcpg:<mcpg>`), the
   * GitHub MCP server's tag and the Node.js image (digests come from `actions-lock.json` where not written).
   */
  components: { mcpg: string; githubMcp: string; nodeImage: string };
  /** The AWF (firewall) release of this gh-aw release (`vX.Y.Z`); undefined: the compiler's default. */
  awf?: string;
  /**
   * What this release's engines differ in from v0.76.1's, by engine id: read once where the engine is
   * resolved (the engine modules of the compiler-arch refactor are their natural home).
   */
  engines: Readonly<Record<string, EngineRelease>>;
  /** Hosts this release adds to a `network.allowed` ecosystem, by ecosystem name. */
  ecosystemHosts: Readonly<Record<string, readonly string[]>>;
  /**
   * Top-level frontmatter keys this release supports beyond v0.76.1's (refused under v0.76.1 with
   * `newer-key-unsupported` or `unknown-key`).
   */
  frontmatterKeys: readonly string[];
  /**
   * Top-level keys this release's schema has that awc does not compile for it yet, each with why (refused
   * with `newer-key-unsupported`, never silently dropped).
   */
  uncompiledKeys: Readonly<Record<string, string>>;
  /** Whether a generated workflow-level `concurrency:` that cancels nothing says `queue: max`. */
  queueWorkflowRuns: boolean;
  /**
   * How `OTEL_RESOURCE_ATTRIBUTES` writes the workflow name and engine id: as written (`raw`) or
   * percent-encoded (`percent`, v0.87: `Smoke%20OTel%20Tracing`).
   */
  otelAttributeEncoding: "raw" | "percent";
  /** How the lock text is written (emit/ asks). */
  emit: EmitStyle;
  /** Release differences in the shape of the built-in jobs (the job planners ask). */
  jobs: JobStyle;
}

/** Release differences in the built-in jobs, applied by the job planners (plan/jobs/). */
export interface JobStyle {
  /**
   * The built-in jobs that read the repository's runtime features (job env `GH_AW_RUNTIME_FEATURES: ${{
   * vars.GH_AW_RUNTIME_FEATURES }}`, v0.87); empty: none.
   */
  runtimeFeaturesJobs: readonly string[];
  /**
   * Whether `pre_activation` asks `contents: read` only when it checks out the actions folder (dev mode), as
   * v0.87 does; false: always (v0.76.1).
   */
  preActivationContentsOnlyForCheckout: boolean;
  /**
   * Whether a slash-command workflow checks the command's position first and runs the membership check only
   * when it passed (`if: steps.check_command_position.outputs.command_position_ok == 'true'`, v0.87).
   */
  commandCheckFirst: boolean;
  /**
   * Whether an `on.roles` that lists only the default roles (admin, maintainer, write) no longer makes a
   * workflow of safe events (schedule, dispatch, push) check the actor's role (v0.87).
   */
  defaultRolesNeedNoCheck: boolean;
  /** Whether the fork guard of pull-request workflows comes with the stacked-PR guard (v0.87). */
  stackedPrGuard: boolean;
  /**
   * Whether the agent also uploads `agent-output-fallback` and the jobs after it download
   * `{agent,agent-output-fallback}` (merged) and export `GH_AW_AGENT_OUTPUT` only when the file arrived.
   */
  agentOutputFallback: boolean;
  /** Whether the GH_HOST step's script carries the zizmor `github-env` suppression on its `run: |` line. */
  ghHostZizmorNote: boolean;
  /**
   * Whether each cache-memory restore step has an id (`restore_cache_memory_N`) whose hit and matched key
   * the agent job exposes and the failure handler reports (v0.87).
   */
  cacheMemoryRestoreOutputs: boolean;
  /**
   * Whether every MCP server (the GitHub MCP server, the author's, agentic-workflows, serena) is mounted as a
   * CLI as `tools.cli-proxy: true` asks in v0.76.1 (v0.87: by default).
   */
  mountAllMcpServers: boolean;
  /**
   * Whether the agentic-workflows server is reached as an MCP server only: not mounted as a CLI and without
   * its guide in the prompt (v0.87.4).
   */
  agenticWorkflowsMcpOnly: boolean;
  /**
   * Whether the agent writes the safe-outputs config with `create_files.cjs` from the step env (v0.87.1),
   * after a "Prepare Safe Outputs Directories" step, instead of a shell heredoc.
   */
  safeOutputsConfigFromEnv: boolean;
  /** Whether "Configure Git credentials" runs `configure_git_credentials.sh` (v0.87) instead of inline git. */
  gitCredentialsScript: boolean;
  /** Whether the agent also checks out the PR a dispatched run's `aw_context` names (v0.87). */
  dispatchedPrCheckout: boolean;
  /** How the frontmatter's custom jobs (`jobs:`) are written. */
  customJobs: CustomJobStyle;
  /**
   * Whether a repo memory without an explicit `id` lives on `<prefix>/<workflow id>` (v0.87), not
   * `memory/default`; one with an `id` on `<prefix>/<id>`.
   */
  repoMemoryBranchByWorkflow: boolean;
  /**
   * Whether a command's pass-through for the events it ignores negates their disjunction as a whole
   * (`!(a || b)`, v0.87) rather than term by term (`(!(a)) && (!(b))`).
   */
  negateDisjunctionWhole: boolean;
  /**
   * Whether `sandbox.agent.runtime: docker-sbx` makes activation check the Docker Hub secrets
   * (`docker_sbx_secrets_result`), the agent skip when they are missing and the conclusion report it (v0.87).
   */
  dockerSbxSecretsCheck: boolean;
  /** The `agent` job. */
  agent: AgentJobStyle;
  /** The `activation` job. */
  activation: ActivationJobStyle;
  /** The `safe_outputs` job. */
  safeOutputs: SafeOutputsJobStyle;
  /**
   * AI-credit accounting (v0.87): the daily guardrail's and the per-run limit's defaults; undefined: the
   * release budgets effective tokens (v0.76.1).
   */
  aiCredits?: { dailyDefault: string; runDefault: string };
}

/** Release differences in the frontmatter's custom jobs. */
export interface CustomJobStyle {
  /** Whether an empty line follows a custom job's `permissions:` (v0.76.1). */
  permissionsBlankLine: boolean;
  /** Whether an `actions/checkout` step gets `persist-credentials: false` unless it sets the key (v0.87). */
  checkoutPersistCredentials: boolean;
  /** Whether a long `if:` is written as a folded block broken after `&&`/`||`, as built-in jobs' are (v0.87). */
  breakLongIf: boolean;
}

/** Release differences in the `agent` job. */
export interface AgentJobStyle {
  /**
   * Whether the job is bounded by `timeout-minutes` (the engine step's plus the setup overhead); false: only
   * the engine step is (v0.87).
   */
  jobTimeout: boolean;
  /**
   * Whether the activation artifact is downloaded right after the workspace setup (before the workflow's own
   * steps and the memories, v0.87), not just before the engine's configuration is restored.
   */
  activationArtifactEarly: boolean;
  /** Arguments the AWF install and the firewall-log summary pass to their scripts (`--rootless`); empty: none. */
  awfScriptArgs: string;
  /** Whether the engine's log parser also reads the safe outputs (`GH_AW_SAFE_OUTPUTS` in its env). */
  logParserReadsSafeOutputs: boolean;
  /**
   * The field validation of safe-output types this release writes otherwise than v0.76.1
   * (`GH_AW_VALIDATION_JSON`), by snake_case type, as written; types not listed keep v0.76.1's.
   */
  validation?: Readonly<Record<string, unknown>>;
  /** Properties this release injects into enabled safe-output tools' schemas (`property_injections`), by tool. */
  toolPropertyInjections?: Readonly<Record<string, unknown>>;
  /**
   * Whether the last scalar of the workflow's `steps:` section loses its final newline in gh-aw's round trip
   * even where it is written quoted (user_steps.ts), also in the steps rewritten for the DIFC proxy.
   */
  trimsQuotedLastScalar?: boolean;
  /** Whether the agent needs every custom job that does not depend on it, by its own name (not only roots and sinks). */
  needsEveryPreAgentJob?: boolean;
  /** Whether the workflow's own steps run after the cache and repo memories are restored (not before). */
  userStepsAfterMemory?: boolean;
  /** Whether the agent artifact keeps the patches and bundles whenever a safe output pushes code. */
  patchesWithCodePush?: boolean;
  /** How the engine runs inside the firewall where the release differs from v0.76.1; undefined: v0.76.1's way. */
  awf?: AwfRunStyle;
  /** The MCP gateway and the safe-outputs MCP server where they differ from v0.76.1; undefined: v0.76.1's. */
  gateway?: McpGatewayStyle;
}

/**
 * How a release runs the engine inside the AWF firewall (plan/agent/awf_command.ts), where it differs from
 * v0.76.1's `sudo -E awf …` with a token budget.
 */
export interface AwfRunStyle {
  /** The model alias table of the AWF config (`apiProxy.models`): alias → ordered candidates. */
  modelAliases: Readonly<Record<string, readonly string[]>>;
  /**
   * The per-run AI-credit limit (`apiProxy.maxAiCredits`, replacing `maxEffectiveTokens`): the workflow's
   * `max-ai-credits`, else `GH_AW_MAX_AI_CREDITS` (the repository variable) falling back to this default.
   */
  maxAiCreditsDefault: string;
  /** `apiProxy.maxCacheMisses`. */
  maxCacheMisses: number;
  /** The firewall roles whose image digests (from `actions-lock.json`) the config's `container.imageTag` lists. */
  imageTagDigests: readonly string[];
  /** The config's `logging` (proxy logs and audit folders), replacing the `--proxy-logs-dir`/`--audit-dir` flags. */
  logging: { proxyLogsDir: string; auditDir: string };
  /**
   * The gateway container the firewall's network attaches to (`network.isolation`, `topologyAttach`); the CLI
   * proxy is then reached by its container name.
   */
  topologyAttach: string;
  /** The CLI proxy's container (`--difc-proxy-host <name>:18443`, attached as well). */
  cliProxyContainer: string;
  /** Variables hidden from the agent besides the secrets (the OIDC request token and URL). */
  excludeEnv: readonly string[];
  /** The gVisor release installed for `sandbox.agent.runtime: gvisor` (`sudo_gvisor_install.sh`). */
  gvisorRelease: string;
  /**
   * The threat-detection job's firewall run, built by the same command builder as the agent's (rootless, the
   * same flags and host preparation) but attached to no gateway, with its own AI-credit budget.
   */
  detection: AwfDetectionStyle;
}

/** How a release with {@link AwfRunStyle} runs the firewall for threat detection, where it differs from the agent. */
export interface AwfDetectionStyle {
  /** The review's AI-credit limit when the repository variable is unset (`GH_AW_MAX_AI_CREDITS` default). */
  maxAiCreditsDefault: string;
  /** The repository variable that overrides it (the step's `GH_AW_MAX_AI_CREDITS` env). */
  maxAiCreditsVar: string;
  /**
   * How the config is patched with the chroot settings on a TCP Docker daemon (ARC/DinD): the agent's Node.js
   * helper, or `jq` in place (the review's run, which gh-aw keeps free of the helper).
   */
  chrootPatch: "node" | "jq";
}

/** How a release starts the MCP gateway and the safe-outputs MCP server (plan/mcp/), where it differs from v0.76.1. */
export interface McpGatewayStyle {
  /**
   * Whether the safe-outputs MCP server runs as a stdio container of the gateway (image `components.nodeImage`)
   * instead of an HTTP server the agent job starts before the gateway.
   */
  safeOutputsStdio: boolean;
  /** The gateway's container name on its bridge network (`--name`, `MCP_GATEWAY_DOMAIN`). */
  containerName: string;
  /** The roots the gateway lets its stdio containers mount (`MCP_GATEWAY_ALLOWED_MOUNT_ROOTS`), in order. */
  allowedMountRoots: readonly string[];
  /** The gateway config's `startupTimeout` (seconds). */
  startupTimeout: number;
  /** `GITHUB_FEATURES` of the local GitHub MCP server. */
  githubFeatures: string;
  /**
   * Whether the repository's visibility (from the lockdown step) bounds the write sinks (`sink-visibility`), so
   * the lockdown step runs whenever the GitHub tool is on, configured guard or not.
   */
  sinkVisibility: boolean;
  /**
   * Whether the CLI and DIFC proxies get the runner's GitHub host settings and `GH_AW_NETWORK_ISOLATION` (they
   * run on the isolated network).
   */
  proxyHostEnv: boolean;
  /** Whether the workflow's GitHub-calling steps run behind the DIFC proxy in every GitHub mode (not only gh-proxy). */
  difcProxyAnyMode: boolean;
  /**
   * Whether an `mcp-servers.github` entry replaces `tools.github`'s settings: the built-in GitHub MCP server is
   * served with its defaults (no guard policy, default toolsets) and the entry is not a server of its own.
   */
  mcpServerReplacesGithubTool: boolean;
  /** Whether `tools.playwright` runs as an MCP server of the gateway (its image, log folder and container). */
  playwrightServer: boolean;
  /** Whether release mode installs `gh aw` with the release's setup-cli action for the agentic-workflows server. */
  releaseInstallsGhAw: boolean;
  /** Whether the config heredoc's delimiter is an FNV-1a checksum of its content (else an HMAC of the hash). */
  delimiterFromContent: boolean;
}

/** Release differences in the `activation` job. */
export interface ActivationJobStyle {
  /** Where the activation job writes the prompt (`GH_AW_PROMPT` of its prompt steps). */
  promptPath: string;
  /** Whether steps that run checked-out content carry the `poutine:ignore` note (and a plain `run:`). */
  poutineNotes: boolean;
  /** The folders the activation job's `.github` checkout fetches. */
  sparseCheckout: readonly string[];
  /** Whether the run info names the agent runtime (`GH_AW_INFO_AGENT_RUNTIME`) and cache-memory use. */
  runInfoAgentRuntime: boolean;
  /** Whether the run info lists `network.allowed` as written (true) or sorted. */
  domainsAsWritten: boolean;
  /** Whether a workflow out of strict mode fails when the repository variable `GH_AW_POLICY_STRICT` is on. */
  strictPolicyCheck: boolean;
  /** Whether "Check compile-agentic version" and "Log runtime features" follow the lock-file check. */
  versionChecks: boolean;
  /** Whether the prompt is copied to `/tmp/gh-aw/aw-prompts` before the artifact upload. */
  stagePromptFiles: boolean;
  /** The model file of the activation artifact. */
  modelsFile: string;
  /** Whether the prompt is built by `create_prompt.cjs` from JSON (v0.86.2), not by a shell heredoc. */
  promptFromJson: boolean;
  /** The prompt fragment on the MCP servers mounted as CLIs. */
  mcpCliPrompt: string;
}

/** Release differences in the `safe_outputs` job. */
export interface SafeOutputsJobStyle {
  /** The runtime module of the "Process Safe Outputs" step. */
  handlerModule: string;
  /** The job's `timeout-minutes`. */
  timeoutMinutes: number;
  /** Whether the job env carries the agent's AI credits and ambient context (`GH_AW_AIC`, …). */
  aiCreditsEnv: boolean;
  /** Whether the job env names the Copilot CLI version (`GH_AW_ENGINE_VERSION`). */
  engineVersionEnv: boolean;
  /** Whether the job exposes the handler's item counts and status (`process_safe_outputs_items_*`). */
  itemOutputs: boolean;
  /** Whether a `contents: read` the safe-output types ask is kept (later releases grant only writes). */
  contentsRead: boolean;
  /** The default of noop's `report-as-issue` when the workflow does not set it. */
  noopReportAsIssue: boolean;
  /** Whether any declared `safe-outputs:` counts as configured (the reporting types join it). */
  declaredConfigures: boolean;
  /**
   * Whether the code-pushing types check out the triggering ref (persisting the credentials) and configure git
   * with `configure_git_credentials.sh`, with no base-branch extraction or trusted-branch checkout (v0.87.4).
   */
  checkoutTriggeringRef: boolean;
  /** The code-pushing types' `max_patch_size` (KB) when the workflow sets none. */
  defaultMaxPatchSize: number;
  /** Handler-config keys this release names otherwise, by handler (`{ add_reviewer: { allowed_reviewers: "allowed" } }`). */
  handlerKeyRenames: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Whether a pull-request-triggered workflow's job env names the head commit (`GH_AW_HEAD_SHA`). */
  headShaEnv: boolean;
  /**
   * Handler-config defaults this release adds, by handler (`{ update_pull_request: { update_branch_stacks:
   * true } }`), applied when the workflow sets no value.
   */
  handlerDefaults: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Job outputs this release adds, by safe-output type (`{ "assign-milestone": { assign_milestone_milestone_assigned:
   * "milestone_assigned" } }`: output name → the processing step's output).
   */
  typeJobOutputs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * Tools this release lists (in the prompt's `Tools:` line) right after another one rather than at their
   * type's place in the registry: `{ close_discussion: "update_discussion" }`.
   */
  toolOrderAfter: Readonly<Record<string, string>>;
  /**
   * Whether the conclusion job's reports write with `safe-outputs.github-token` when it is set (as the
   * v0.77.5 and v0.87.4 locks do), not always with the default token.
   */
  conclusionUsesOwnToken: boolean;
}

/** One engine as a release ships it, where it differs from v0.76.1. */
export interface EngineRelease {
  /** The CLI release installed (`GH_AW_INFO_VERSION`, `engine_versions`). */
  version?: string;
  /** The model expression when the workflow names none. */
  defaultModel?: string;
  /** The hosts the engine reaches on its own (its network defaults). */
  domains?: readonly string[];
  /** The agent instruction files the code-pushing safe outputs protect. */
  instructionFiles?: readonly string[];
  /** The engine's own config folders and files, saved and restored around the base branch checkout. */
  agentConfig?: { folders: readonly string[]; files: readonly string[] };
  /**
   * Whether the install script picks the CLI release itself from the compiler's version
   * (`GH_AW_COMPILED_VERSION` in its env) instead of a version argument.
   */
  installByCompiledVersion?: boolean;
  /**
   * Whether the agent's errors are detected by a github-script step that also reads the engine step's outcome
   * and timeout (v0.87), not by a plain `node` run.
   */
  errorsByScript?: boolean;
  /**
   * Whether the CLI runs as a copy in `${RUNNER_TEMP}/gh-aw/bin` with its settings and MCP config under `$HOME`
   * (set up by the step's script, an exit trap recording the exit code), and the step's env names the LLM
   * provider, the turn and credit limits, the timeout and the trace parent (v0.87).
   */
  harnessedRun?: boolean;
}

/** Release differences in how the lock text is written, applied by emit/. */
export interface EmitStyle {
  /**
   * How `actions/github-script` steps load the runtime helpers: `runner-temp` (`require('${{ runner.temp
   * }}/gh-aw/actions/x.cjs')`) or `path-join` (v0.87.2: `require(path.join(actionsDir, 'x.cjs'))` after
   * `const path = require('path')` and `const actionsDir = …RUNNER_TEMP…`).
   */
  helperRequire: "runner-temp" | "path-join";
  /**
   * Whether the sequences of `on:` are indented under their key (`types:\n  - opened`), not compact, a
   * comment there ends the line before it (`- cron: "…"  # Friendly format: …`), and the lines of a
   * commented-out gh-aw key (`# skip-if-match:`) all stand at the key's indentation.
   */
  indentOnSequences: boolean;
  /** Whether no line keeps trailing whitespace (blank lines of blocks, the logo). */
  trimTrailingWhitespace: boolean;
  /**
   * Whether the "generated by gh-aw" line names the release and the debug skill and comes right after the
   * manifest line (`#` then stands where v0.76.1 writes it, after the logo).
   */
  generatedLineFirst: boolean;
  /** Whether the lock ends with its last line's newline only (v0.76.1 leaves an empty line after it). */
  noFinalBlankLine: boolean;
  /**
   * The manifest's `mcp_servers` (v0.87.4: each MCP server the agent reaches with the tools it may call);
   * undefined: the manifest has none.
   */
  manifestMcpServers?: ManifestMcpServers;
  /** Whether the manifest says `has_pull_request: true` for a workflow triggered by `pull_request`. */
  manifestHasPullRequest: boolean;
}

/** What the manifest's `mcp_servers` list is built from. */
export interface ManifestMcpServers {
  /** The read-only tools of each GitHub MCP toolset, as this release lists them. */
  githubToolsets: Readonly<Record<string, readonly string[]>>;
  /** Safe-outputs config keys that are no tool of the safe-outputs server (`mentions`, …). */
  notSafeOutputTools: readonly string[];
}

/** The release a lock was compiled for: its `compiler_version`, else the tag its setup action is pinned at. */
export function lockCompilerVersion(lockText: string): string | undefined {
  const meta = /^# gh-aw-metadata: (\{.*\})$/m.exec(lockText);
  if (meta) {
    try {
      const v = JSON.parse(meta[1]).compiler_version;
      if (typeof v === "string" && v !== "") return v.startsWith("v") ? v : `v${v}`;
    } catch {
      // an unreadable header says nothing
    }
  }
  const setup = /github\/gh-aw-actions\/setup@[0-9a-f]{40} # (v\d+\.\d+\.\d+)/.exec(lockText);
  return setup?.[1];
}
