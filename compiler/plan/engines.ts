/**
 * Engine table: display names, CLI versions, secrets read, the secret-validation step arguments, default
 * model variables and installation commands. Crush (and opencode/pi) pick their key from `provider/model`.
 */
import type { Diagnostic } from "../api.ts";
import { diagnostic } from "../source/diagnostics.ts";
import { type EngineAuth, resolveEngineAuth } from "./engine_auth.ts";

/** Static facts of one engine. */
export interface EngineInfo {
  id: string;
  displayName: string;
  /** Name used by the secret-validation step. */
  validateName: string;
  version: string;
  /** Docs anchor shown when the secret is missing. */
  docs: string;
  /** Secrets read (alternatives: any one suffices). */
  secrets: string[];
  /** Model default expression (vars fallbacks) when no model is configured. */
  defaultModel: string;
  /** Install step (shell). */
  install: string;
  supportsMaxTurns: boolean;
  supportsMaxContinuations: boolean;
  experimental: boolean;
  /** Whether a `provider/model` value selects the secret. */
  providerAuth: boolean;
  /** Whether the engine honours `tools:` (an allowlist); without it gh-aw keeps only the default GitHub tool. */
  toolsAllowlist: boolean;
  /** Name used in the agent job's "Install …"/"Execute …" steps. */
  cliName: string;
  /** The agent job's install command and its env. */
  agentInstall: { run: string; env?: Record<string, string> };
  /** Whether the agent job sets up Node.js before installing the CLI. */
  needsNode: boolean;
  /** Whether the CLI is installed after (true) or before (false) the AWF binary. */
  installAfterAwf: boolean;
  /** Log parser module and the file it reads (no "Parse agent logs" step when absent). */
  logParser?: { module: string; output: string };
}

const DOCS = "https://github.github.com/gh-aw/reference/engines/";

/** The engines, keyed by id. */
export const ENGINES: Record<string, EngineInfo> = {
  copilot: {
    id: "copilot",
    displayName: "GitHub Copilot CLI",
    validateName: "GitHub Copilot CLI",
    version: "1.0.55",
    docs: `${DOCS}#github-copilot-default`,
    secrets: ["COPILOT_GITHUB_TOKEN"],
    defaultModel:
      "${{ vars.GH_AW_MODEL_AGENT_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || 'claude-sonnet-4.6' }}",
    install: 'bash "${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh" 1.0.55',
    supportsMaxTurns: false,
    supportsMaxContinuations: true,
    experimental: false,
    providerAuth: false,
    toolsAllowlist: true,
    cliName: "GitHub Copilot CLI",
    agentInstall: {
      run: 'bash "${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh" 1.0.55',
      env: { GH_HOST: "github.com" },
    },
    needsNode: false,
    installAfterAwf: false,
    logParser: { module: "parse_copilot_log", output: "/tmp/gh-aw/sandbox/agent/logs/" },
  },
  claude: {
    id: "claude",
    displayName: "Claude Code",
    validateName: "Claude Code",
    version: "2.1.156",
    docs: `${DOCS}#anthropic-claude-code`,
    secrets: ["ANTHROPIC_API_KEY"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CLAUDE || vars.GH_AW_DEFAULT_MODEL_CLAUDE || 'agent' }}",
    install: "npm install -g @anthropic-ai/claude-code@2.1.156",
    supportsMaxTurns: true,
    supportsMaxContinuations: false,
    experimental: false,
    providerAuth: false,
    toolsAllowlist: true,
    cliName: "Claude Code CLI",
    agentInstall: { run: "npm install -g @anthropic-ai/claude-code@2.1.156" },
    needsNode: true,
    installAfterAwf: true,
    logParser: { module: "parse_claude_log", output: "/tmp/gh-aw/agent-stdio.log" },
  },
  codex: {
    id: "codex",
    displayName: "Codex",
    validateName: "Codex",
    version: "0.135.0",
    docs: `${DOCS}#openai-codex`,
    secrets: ["CODEX_API_KEY", "OPENAI_API_KEY"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CODEX || vars.GH_AW_DEFAULT_MODEL_CODEX || 'gpt-5.4' }}",
    install: "npm install -g @openai/codex@0.135.0",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: false,
    providerAuth: false,
    toolsAllowlist: true,
    cliName: "Codex CLI",
    agentInstall: { run: "npm install --ignore-scripts -g @openai/codex@0.135.0" },
    needsNode: true,
    installAfterAwf: false,
    logParser: { module: "parse_codex_log", output: "/tmp/gh-aw/agent-stdio.log" },
  },
  gemini: {
    id: "gemini",
    displayName: "Google Gemini CLI",
    validateName: "Gemini CLI",
    version: "",
    docs: "https://geminicli.com/docs/get-started/authentication/",
    secrets: ["GEMINI_API_KEY"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CUSTOM || 'agent' }}",
    install: "npm install -g @google/gemini-cli",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: false,
    providerAuth: false,
    toolsAllowlist: true,
    cliName: "Gemini CLI",
    agentInstall: { run: "npm install --ignore-scripts -g @google/gemini-cli@0.39.1" },
    needsNode: true,
    installAfterAwf: true,
    logParser: { module: "parse_gemini_log", output: "/tmp/gh-aw/agent-stdio.log" },
  },
  crush: {
    id: "crush",
    displayName: "Crush",
    validateName: "Crush CLI",
    version: "0.59.0",
    docs: `${DOCS}#crush`,
    secrets: ["COPILOT_GITHUB_TOKEN"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CRUSH || '' }}",
    install: "npm install -g @charmland/crush@0.59.0",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: true,
    providerAuth: true,
    toolsAllowlist: false,
    cliName: "Crush CLI",
    agentInstall: { run: "npm install -g @charmland/crush@0.59.0", env: { NPM_CONFIG_MIN_RELEASE_AGE: "3" } },
    needsNode: true,
    installAfterAwf: true,
  },
  opencode: {
    id: "opencode",
    displayName: "OpenCode",
    validateName: "OpenCode CLI",
    version: "1.2.14",
    docs: `${DOCS}#opencode`,
    secrets: ["COPILOT_GITHUB_TOKEN"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_OPENCODE || '' }}",
    install: "npm install -g opencode-ai@1.2.14",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: true,
    providerAuth: true,
    toolsAllowlist: false,
    cliName: "OpenCode CLI",
    agentInstall: {
      run: "npm install --ignore-scripts -g opencode-ai@1.2.14",
      env: { NPM_CONFIG_MIN_RELEASE_AGE: "3" },
    },
    needsNode: true,
    installAfterAwf: true,
  },
  pi: {
    id: "pi",
    displayName: "Pi",
    validateName: "Pi",
    version: "0.75.4",
    docs: `${DOCS}#pi`,
    secrets: ["COPILOT_GITHUB_TOKEN"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_PI || '' }}",
    install: "npm install -g @mariozechner/pi-coding-agent@0.75.4",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: true,
    providerAuth: true,
    toolsAllowlist: true,
    cliName: "Pi CLI",
    agentInstall: { run: "npm install --ignore-scripts -g @earendil-works/pi-coding-agent@0.75.4" },
    needsNode: true,
    installAfterAwf: true,
    logParser: { module: "parse_pi_log", output: "/tmp/gh-aw/pi-streaming.jsonl" },
  },
  antigravity: {
    id: "antigravity",
    displayName: "Antigravity CLI",
    validateName: "Antigravity CLI",
    version: "",
    docs: "https://antigravity.google/docs/cli-overview",
    secrets: ["ANTIGRAVITY_API_KEY"],
    defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CUSTOM || '' }}",
    install: "npm install -g @google/antigravity-cli",
    supportsMaxTurns: false,
    supportsMaxContinuations: false,
    experimental: true,
    providerAuth: false,
    toolsAllowlist: true,
    cliName: "Antigravity CLI",
    agentInstall: {
      run: 'bash "${RUNNER_TEMP}/gh-aw/actions/install_antigravity_cli.sh" "${ENGINE_VERSION}"',
      env: { ENGINE_VERSION: "1.0.2-6113393518706688" },
    },
    needsNode: false,
    installAfterAwf: false,
    logParser: { module: "parse_antigravity_log", output: "/tmp/gh-aw/agent-stdio.log" },
  },
};

/** Provider prefix → secrets, for `provider/model` engines. */
export const PROVIDER_SECRETS: Record<string, string[]> = {
  copilot: ["COPILOT_GITHUB_TOKEN"],
  "github-copilot": ["COPILOT_GITHUB_TOKEN"],
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["CODEX_API_KEY", "OPENAI_API_KEY"],
  codex: ["CODEX_API_KEY", "OPENAI_API_KEY"],
};

/** The effective engine configuration of a workflow. */
export interface EngineConfig {
  info: EngineInfo;
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

/** Names of subscription/OAuth token secrets that are refused. */
const OAUTH_SECRETS = ["CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "CODEX_OAUTH_TOKEN"];

/** Resolves `engine:` (string or object) with diagnostics located in `file`. */
export function resolveEngine(
  raw: unknown,
  permissions: unknown,
  file: string,
  locate: (p: (string | number)[]) => [number, number],
  diags: Diagnostic[],
): EngineConfig {
  const obj = raw && typeof raw === "object" ? raw as Record<string, unknown> : {};
  const id = typeof raw === "string" ? raw : typeof obj.id === "string" ? obj.id : "copilot";
  const info = ENGINES[id] ?? ENGINES.copilot;
  const model = typeof obj.model === "string" ? obj.model : undefined;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries((obj.env ?? {}) as Record<string, unknown>)) env[k] = String(v);
  let secrets = [...info.secrets];
  if (info.providerAuth && model && model.includes("/")) {
    const provider = model.split("/")[0];
    const s = PROVIDER_SECRETS[provider];
    if (s) secrets = [...s];
    else {
      const [line, column] = locate(["engine", "model"]);
      diags.push(
        diagnostic(
          "unsupported-provider",
          { file, line, column },
          `unsupported provider "${provider}" in model "${model}" for engine ${id}`,
          `use one of ${Object.keys(PROVIDER_SECRETS).join(", ")} as the provider prefix`,
        ),
      );
    }
  }
  for (const [k, v] of Object.entries(env)) {
    const refs = [...v.matchAll(/secrets\.([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    for (const r of refs) {
      if (OAUTH_SECRETS.includes(r)) {
        const [line, column] = locate(["engine", "env", k]);
        diags.push(
          diagnostic(
            "oauth-token-unsupported",
            { file, line, column },
            `subscription OAuth token secret ${r} is not supported for engine ${id}`,
            info.id === "claude"
              ? "use an ANTHROPIC_API_KEY secret or workload identity federation"
              : "use an API key secret",
          ),
        );
      }
    }
    if (/_(API_)?KEY$/.test(k) && !secrets.includes(k)) secrets.push(k);
  }
  const auth = resolveEngineAuth(obj.auth, id, file, locate, diags);
  if (auth && typeof permissions === "string" && !permissions.startsWith("write")) {
    const [line, column] = locate(["permissions"]);
    diags.push(
      diagnostic(
        "engine-auth-invalid",
        { file, line, column },
        `engine.auth needs id-token: write, which permissions: ${permissions} cannot grant`,
        "write permissions as a mapping (the agent job then gets id-token: write added)",
      ),
    );
  }
  // A federated engine reads no API-key secret: drop the engine's own (keys the author passes stay).
  if (auth) secrets = secrets.filter((s) => !info.secrets.includes(s));
  const perms = permissions && typeof permissions === "object" ? permissions as Record<string, unknown> : {};
  const grantsCopilotRequests = perms["copilot-requests"] === "write";
  const usesCopilotRequests = id === "copilot" && grantsCopilotRequests;
  if (obj["max-turns"] !== undefined && !info.supportsMaxTurns) {
    const [line, column] = locate(["engine", "max-turns"]);
    diags.push(
      diagnostic(
        "unsupported-option",
        { file, line, column },
        `engine ${id} does not support max-turns; it is ignored`,
        "use engine claude for max-turns",
      ),
    );
  }
  const command = typeof obj.command === "string" ? obj.command : undefined;
  const byok = id === "copilot" && "COPILOT_PROVIDER_BASE_URL" in env;
  // gh-aw validates no secret when the author's command replaces the CLI, nor when Copilot talks to the
  // author's own provider (its key is whatever the author passes, often no secret at all).
  if (command !== undefined || byok) secrets = [];
  return {
    info,
    model,
    command,
    byok,
    maxTurns: obj["max-turns"] as number | string | undefined,
    maxContinuations: obj["max-continuations"] as number | string | undefined,
    env,
    secrets: usesCopilotRequests ? [] : secrets,
    usesCopilotRequests,
    grantsCopilotRequests,
    agent: typeof obj.agent === "string" ? obj.agent : undefined,
    auth,
  };
}
