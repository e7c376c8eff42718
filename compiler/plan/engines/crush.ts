/** Crush (a provider CLI: `./provider_cli.ts`), verified after its install. */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES, DOCS } from "./facts.ts";
import { type ProviderCli, providerDetection, providerExecute } from "./provider_cli.ts";
import { plain } from "../../yaml/writer.ts";

const VERSION = "0.59.0";
const INSTALL = `npm install -g @charmland/crush@${VERSION}`;

const CLI: ProviderCli = {
  id: "crush",
  title: "Crush",
  config: { file: ".crush.json", key: "permission", extra: ["external_directory"] },
  command: "crush run --verbose $PROMPT_TEXT",
  install: { run: INSTALL },
  afterInstall: [{ name: "Verify Crush CLI installation", run: plain("crush --version") }],
};

const PROVIDER_HOSTS = ["charm.land", "registry.npmjs.org"];

/** Crush. */
export const crush: Engine = {
  id: "crush",
  displayName: "Crush",
  validateName: "Crush CLI",
  version: VERSION,
  docs: `${DOCS}#crush`,
  secrets: ["COPILOT_GITHUB_TOKEN"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CRUSH || '' }}",
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: true,
  providerAuth: true,
  toolsAllowlist: false,
  cliName: "Crush CLI",
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
  afterInstall: CLI.afterInstall,
  execute: (a) => providerExecute(CLI, a),
  detection: providerDetection(CLI, { id: "crush", providerHosts: PROVIDER_HOSTS }),
};
