/** Google Gemini CLI (Google's CLI family: `./google_cli.ts`). */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES } from "./facts.ts";
import { type GoogleCli, googleDetection, googleExecute, googlePreBundle } from "./google_cli.ts";
import { plain } from "../../yaml/writer.ts";

/** The CLI release installed (gh-aw reports no version for Gemini). */
const CLI_VERSION = "0.39.1";
const INSTALL = `npm install --ignore-scripts -g @google/gemini-cli@${CLI_VERSION}`;

const CLI: GoogleCli = {
  id: "gemini",
  title: "Gemini",
  key: "GEMINI_API_KEY",
  prefix: "GEMINI",
  command: "gemini --yolo --skip-trust --output-format stream-json --prompt $PROMPT_TEXT",
  geminiKeyAlias: false,
};

/** Google Gemini CLI. */
export const gemini: Engine = {
  id: "gemini",
  displayName: "Google Gemini CLI",
  validateName: "Gemini CLI",
  version: "",
  docs: "https://geminicli.com/docs/get-started/authentication/",
  secrets: ["GEMINI_API_KEY"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CUSTOM || 'agent' }}",
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: false,
  providerAuth: false,
  toolsAllowlist: true,
  cliName: "Gemini CLI",
  agentInstall: { run: INSTALL },
  needsNode: true,
  installAfterAwf: true,
  logParser: { module: "parse_gemini_log", output: "/tmp/gh-aw/agent-stdio.log" },
  apiHosts: "generativelanguage.googleapis.com",
  reportsFirewall: false,
  detectsErrors: false,
  reportsVersion: false,
  logPath: "/tmp/gh-aw/gemini-client-error-*.json",
  redactsUrls: true,
  agentDirs: { root: ".gemini", agents: ".gemini/agents", ext: ".md", skills: ".gemini/skills" },
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "json", varRefs: false, ghProxyFallback: false },
  copilotRequests: false,
  oauthHint: "use an API key secret",
  execute: (a) => googleExecute(CLI, a),
  preBundle: () => googlePreBundle(CLI),
  detection: googleDetection(CLI, { id: "gemini" }, true, (awf) => [
    awf,
    { name: "Install Gemini CLI", run: plain(INSTALL) },
  ]),
};
