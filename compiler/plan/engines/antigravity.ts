/** Antigravity CLI, a native binary of Google's CLI family (`./google_cli.ts`). */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES } from "./facts.ts";
import { type GoogleCli, googleDetection, googleExecute, googlePreBundle } from "./google_cli.ts";
import { plain } from "../../yaml/writer.ts";

const INSTALL = 'bash "${RUNNER_TEMP}/gh-aw/actions/install_antigravity_cli.sh" "${ENGINE_VERSION}"';
/** The CLI release installed (gh-aw reports no version for Antigravity). */
const INSTALL_ENV = { ENGINE_VERSION: "1.0.2-6113393518706688" };

const CLI: GoogleCli = {
  id: "antigravity",
  title: "Antigravity",
  key: "ANTIGRAVITY_API_KEY",
  prefix: "ANTIGRAVITY",
  command: "agy --dangerously-skip-permissions --prompt $PROMPT_TEXT",
  geminiKeyAlias: true,
};

/** Antigravity CLI. */
export const antigravity: Engine = {
  id: "antigravity",
  displayName: "Antigravity CLI",
  validateName: "Antigravity CLI",
  version: "",
  docs: "https://antigravity.google/docs/cli-overview",
  secrets: ["ANTIGRAVITY_API_KEY"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CUSTOM || '' }}",
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: true,
  providerAuth: false,
  toolsAllowlist: true,
  cliName: "Antigravity CLI",
  agentInstall: { run: INSTALL, env: INSTALL_ENV },
  needsNode: false,
  installAfterAwf: false,
  logParser: { module: "parse_antigravity_log", output: "/tmp/gh-aw/agent-stdio.log" },
  apiHosts: "generativelanguage.googleapis.com",
  reportsFirewall: false,
  detectsErrors: false,
  reportsVersion: false,
  logPath: "/tmp/gh-aw/antigravity-client-error-*.json",
  redactsUrls: true,
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "json", varRefs: false, ghProxyFallback: false },
  copilotRequests: false,
  oauthHint: "use an API key secret",
  execute: (a) => googleExecute(CLI, a),
  preBundle: () => googlePreBundle(CLI),
  // Its CLI is a native binary: no Node.js set-up.
  detection: googleDetection(CLI, { id: "antigravity" }, false, (awf) => [
    { name: "Install Antigravity CLI", run: plain(INSTALL), env: { ...INSTALL_ENV } },
    awf,
  ]),
};
