/**
 * Codex CLI itself, as a test client: the pinned `@openai/codex` from the npm registry (its launcher and the
 * platform's native binary, an optional dependency), installed once into a cache directory with install
 * scripts off, and run as `codex exec` with a throwaway HOME/CODEX_HOME whose config.toml names the gateway
 * as the model provider (`wire_api = "responses"`).
 */
import { join } from "node:path";

/** The pinned Codex CLI release. */
export const CODEX_VERSION = "0.171.0";
const PACKAGE = "@openai/codex";
const INSTALL_TIMEOUT_MS = 240_000;

/** An installed Codex CLI, or why it could not be obtained. */
export type CodexCli = { launcher: string } | { unavailable: string };

function cacheRoot(): string {
  const explicit = Deno.env.get("SWITCHYARD_TEST_CACHE");
  if (explicit) return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME");
  return join(xdg ?? (home ? join(home, ".cache") : Deno.makeTempDirSync()), "switchyard");
}

async function installedVersion(dir: string): Promise<string | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(join(dir, "node_modules", PACKAGE, "package.json"))).version;
  } catch {
    return undefined;
  }
}

async function run(
  command: string,
  args: string[],
  signal: AbortSignal,
): Promise<{ ok: boolean; err: string }> {
  try {
    const out = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      signal,
    })
      .output();
    return { ok: out.success, err: new TextDecoder().decode(out.stderr).slice(-2_000) };
  } catch (error) {
    return { ok: false, err: String(error) };
  }
}

/** Installs the pinned release into `<cache>/codex-<version>` unless it is there (staged, then renamed). */
export async function obtainCodex(): Promise<CodexCli> {
  const dir = join(cacheRoot(), `codex-${CODEX_VERSION}`);
  const launcher = join(dir, "node_modules", PACKAGE, "bin", "codex.js");
  if (await installedVersion(dir) !== CODEX_VERSION) {
    const signal = AbortSignal.timeout(INSTALL_TIMEOUT_MS);
    const node = await run("node", ["--version"], signal);
    if (!node.ok) return { unavailable: `node is not available to run Codex CLI (${node.err.trim()})` };
    await Deno.mkdir(cacheRoot(), { recursive: true });
    const staging = await Deno.makeTempDir({ dir: cacheRoot(), prefix: ".codex-install-" });
    const npm = await run("npm", [
      "install",
      "--prefix",
      staging,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      `${PACKAGE}@${CODEX_VERSION}`,
    ], signal);
    if (!npm.ok || await installedVersion(staging) !== CODEX_VERSION) {
      await Deno.remove(staging, { recursive: true }).catch(() => {});
      return { unavailable: `npm could not install ${PACKAGE}@${CODEX_VERSION}: ${npm.err.trim()}` };
    }
    try {
      await Deno.rename(staging, dir);
    } catch {
      await Deno.remove(staging, { recursive: true }).catch(() => {});
    }
  }
  // The launcher finds the platform's binary package; without one this platform cannot run Codex.
  const probe = await new Deno.Command("node", {
    args: [launcher, "--version"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output().catch((error) => ({ success: false, stderr: new TextEncoder().encode(String(error)) }));
  if (!probe.success) {
    return {
      unavailable: `Codex CLI cannot run here: ${new TextDecoder().decode(probe.stderr).slice(-500)}`,
    };
  }
  return { launcher };
}

/** One `codex exec` run. */
export interface CodexRun {
  /** Exit code. */
  code: number;
  /** The agent's last message (`--output-last-message`), when written. */
  lastMessage?: string;
  /** Raw output, for failure messages. */
  stdout: string;
  stderr: string;
}

/** What a run needs. */
export interface CodexOptions {
  /** The installed launcher. */
  launcher: string;
  /** The gateway's OpenAI base URL (`…/openai/v1`). */
  baseUrl: string;
  /** A gateway key. */
  apiKey: string;
  /** The model Codex asks for. */
  model: string;
  /** The prompt. */
  prompt: string;
  /** Working directory (the shell tool runs there). */
  cwd: string;
  /** Throwaway HOME. */
  home: string;
  /** A loopback proxy every non-loopback request would go to. */
  proxyUrl: string;
  /** Kill the run after this long. */
  timeoutMs?: number;
}

/**
 * The config.toml of a run: the gateway as the only model provider, over the Responses API; hosted web
 * search and the sub-agent namespace tools off (the gateway refuses provider-hosted tools), no approvals,
 * and every feature that reaches OpenAI's or GitHub's servers on its own (update check, analytics,
 * feedback, plugins and apps, model discovery) switched off.
 */
function configToml(options: CodexOptions): string {
  return `model = ${JSON.stringify(options.model)}
model_provider = "switchyard"
approval_policy = "never"
sandbox_mode = "danger-full-access"
web_search = "disabled"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
multi_agent = false
plugins = false
remote_plugin = false
apps = false
tool_suggest = false
api_key_model_discovery = false
skill_mcp_dependency_install = false

[model_providers.switchyard]
name = "Switchyard gateway"
base_url = ${JSON.stringify(options.baseUrl)}
env_key = "SWITCHYARD_GATEWAY_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`;
}

/** Runs `codex exec` with only the environment listed here (no real key, no user config). */
export async function runCodex(options: CodexOptions): Promise<CodexRun> {
  const codexHome = join(options.home, ".codex");
  await Deno.mkdir(codexHome, { recursive: true });
  await Deno.writeTextFile(join(codexHome, "config.toml"), configToml(options));
  const lastFile = join(options.home, "last-message.txt");
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.home,
    CODEX_HOME: codexHome,
    TMPDIR: options.home,
    SHELL: "/bin/bash",
    SWITCHYARD_GATEWAY_KEY: options.apiKey,
    HTTPS_PROXY: options.proxyUrl,
    HTTP_PROXY: options.proxyUrl,
    https_proxy: options.proxyUrl,
    http_proxy: options.proxyUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
  const out = await new Deno.Command("node", {
    args: [
      options.launcher,
      "exec",
      "--skip-git-repo-check",
      "--output-last-message",
      lastFile,
      options.prompt,
    ],
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
  }).output();
  const lastMessage = await Deno.readTextFile(lastFile).catch(() => undefined);
  return {
    code: out.code,
    lastMessage,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}
