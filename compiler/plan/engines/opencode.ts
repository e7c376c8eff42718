/** OpenCode (a provider CLI: `./provider_cli.ts`). */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES, DOCS } from "./facts.ts";
import { type ProviderCli, providerDetection, providerExecute } from "./provider_cli.ts";

const VERSION = "1.2.14";
const INSTALL = `npm install --ignore-scripts -g opencode-ai@${VERSION}`;

const CLI: ProviderCli = {
  id: "opencode",
  title: "OpenCode",
  config: { file: "opencode.jsonc", key: "permissions", extra: [] },
  command: "opencode run --print-logs --log-level DEBUG $PROMPT_TEXT",
  install: { run: INSTALL },
  afterInstall: [],
};

const PROVIDER_HOSTS = ["registry.npmjs.org"];

/** OpenCode. */
export const opencode: Engine = {
  id: "opencode",
  displayName: "OpenCode",
  validateName: "OpenCode CLI",
  version: VERSION,
  docs: `${DOCS}#opencode`,
  secrets: ["COPILOT_GITHUB_TOKEN"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_OPENCODE || '' }}",
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: true,
  providerAuth: true,
  toolsAllowlist: false,
  cliName: "OpenCode CLI",
  agentInstall: { run: INSTALL, env: { NPM_CONFIG_MIN_RELEASE_AGE: "3" } },
  needsNode: true,
  installAfterAwf: true,
  apiHosts: "",
  providerHosts: PROVIDER_HOSTS,
  reportsFirewall: false,
  detectsErrors: false,
  reportsVersion: false,
  redactsUrls: false,
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "json", varRefs: false, ghProxyFallback: false },
  copilotRequests: false,
  oauthHint: "use an API key secret",
  execute: (a) => providerExecute(CLI, a),
  detection: providerDetection(CLI, { id: "opencode", providerHosts: PROVIDER_HOSTS }),
};
