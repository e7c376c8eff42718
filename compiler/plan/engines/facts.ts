/**
 * What every planner may ask of an engine without running any of its code: its names, versions, secrets,
 * hosts and the switches the shared job builders read (`EngineFacts`), the target the lock is compiled for
 * (`EngineTarget`), and the workflow's resolved engine (`EngineConfig`). Data only, so any planner can read
 * it; an engine's steps are in its module (`./<id>.ts`, the `Engine` of `./contract.ts`).
 */
import type { EngineAuth } from "../engine_auth.ts";
import type { GhAwTarget } from "../../targets/mod.ts";

/**
 * The gh-aw release a lock is compiled for (`awc compile --gh-aw-version`, `targets/`). Engines are built per
 * target (`./registry.ts`), so a release can change a version or a step of one engine without a branch
 * elsewhere.
 */
export type EngineTarget = GhAwTarget;

/** How the MCP gateway's configuration is written for the engine. */
export interface EngineMcpFacts {
  /**
   * What the engine reads: the gateway's `json`, a `toml` config in `CODEX_HOME` beside it (Codex), or `none`
   * (Pi: the gateway script ends after the docker command).
   */
  format: "json" | "toml" | "none";
  /** Whether the JSON uses `${VAR}` references and an explicit `"type": "stdio"` (Copilot's dialect). */
  varRefs: boolean;
  /** The folder the gateway writes the engine's config into, created first (Copilot's home). */
  configDir?: string;
  /** Variables the gateway step sets for the engine's config (Codex's `CODEX_HOME`). */
  gatewayEnv?: Record<string, string>;
  /** Whether an imported `gh-proxy` GitHub mode falls back to the local server (`local-fallback`). */
  ghProxyFallback: boolean;
}

/** Agent instruction folders (sub-agents, their file extension, skills). */
export interface AgentDirs {
  /** The engine's own folder (`.claude`), whose `agents/` and `skills/` the activation job lists. */
  root: string;
  agents: string;
  ext: string;
  skills: string;
}

/** Static facts of one engine (for one target). */
export interface EngineFacts {
  id: string;
  displayName: string;
  /** Name used by the secret-validation step. */
  validateName: string;
  /** The CLI version reported in the lock (`GH_AW_INFO_VERSION`; empty when gh-aw reports none). */
  version: string;
  /** Docs anchor shown when the secret is missing. */
  docs: string;
  /** Secrets read (alternatives: any one suffices). */
  secrets: string[];
  /** Model default expression (vars fallbacks) when no model is configured. */
  defaultModel: string;
  supportsMaxTurns: boolean;
  supportsMaxContinuations: boolean;
  experimental: boolean;
  /** Whether a `provider/model` value selects the secret (and the provider's API host). */
  providerAuth: boolean;
  /** Whether the engine honours `tools:` (an allowlist); without it gh-aw keeps only the default GitHub tool. */
  toolsAllowlist: boolean;
  /** Name used in the agent job's "Install …"/"Execute …" steps. */
  cliName: string;
  /** The install command (agent job and threat detection) and its env. */
  agentInstall: { run: string; env?: Record<string, string> };
  /** Whether the agent job sets up Node.js before installing the CLI. */
  needsNode: boolean;
  /** Whether the CLI is installed after (true) or before (false) the AWF binary. */
  installAfterAwf: boolean;
  /** Log parser module and the file it reads (no "Parse agent logs" step when absent). */
  logParser?: { module: string; output: string };
  /** The engine's API hosts, named in the failure issue when the firewall blocked one (comma-separated). */
  apiHosts: string;
  /** Hosts a provider engine's CLI reaches on its own (npm's registry, its catalogue), beside its provider's. */
  providerHosts?: string[];
  /** Whether the activation job reports the firewall in `aw_info` (`GH_AW_INFO_FIREWALL_*`). */
  reportsFirewall: boolean;
  /** Whether the engine's run is followed by "Detect agent errors" (whose outputs the agent job exposes). */
  detectsErrors: boolean;
  /** Whether the jobs after the agent are told the CLI's version (`GH_AW_ENGINE_VERSION`). */
  reportsVersion: boolean;
  /** Where the engine leaves its own logs, uploaded with the `agent` artifact. */
  logPath?: string;
  /** Whether its output goes through the URL redaction that writes `redacted-urls.log`. */
  redactsUrls: boolean;
  /** Its agent instruction folders (GitHub's when absent). */
  agentDirs?: AgentDirs;
  /** The instruction files a code-pushing safe output protects, in the order gh-aw lists them. */
  instructionFiles: string[];
  mcp: EngineMcpFacts;
  /** The CLI command installing a `plugins:` entry (engines without one refuse `plugins:`). */
  pluginInstall?: string;
  /** The `engine.env` key that points Copilot at the author's own provider (BYOK: no Copilot secret). */
  byokEnvKey?: string;
  /** Whether `copilot-requests: write` replaces the engine's token with the workflow's. */
  copilotRequests: boolean;
  /** The hint of a refused subscription OAuth token secret. */
  oauthHint: string;
}

/** Where the engines' docs live (the anchor shown when a secret is missing). */
export const DOCS = "https://github.github.com/gh-aw/reference/engines/";

/** GitHub's agent folders, used by the engines without their own. */
export const GITHUB_AGENT_DIRS: AgentDirs = {
  root: ".github",
  agents: ".github/agents",
  ext: ".agent.md",
  skills: ".github/skills",
};

/** The instruction files every engine but Claude protects. */
export const DEFAULT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/** The effective engine configuration of a workflow. */
export interface EngineConfig {
  info: EngineFacts;
  /** The target the lock is compiled for (the registry builds the engine for it). */
  target: EngineTarget;
  model?: string;
  maxTurns?: number | string;
  maxContinuations?: number | string;
  env: Record<string, string>;
  /** Secrets the engine reads. */
  secrets: string[];
  /** Whether `copilot-requests: write` lets copilot use the workflow token instead of a PAT. */
  usesCopilotRequests: boolean;
  /** Whether the workflow grants `copilot-requests: write`, whatever its engine. */
  grantsCopilotRequests: boolean;
  agent?: string;
  /** Workload identity federation replacing the engine's API-key secret (`engine.auth`). */
  auth?: EngineAuth;
  /** `engine.command`: the author's command runs instead of the engine's CLI. */
  command?: string;
  /** Copilot pointed at the author's own model provider (`engine.env.COPILOT_PROVIDER_BASE_URL`). */
  byok: boolean;
}
