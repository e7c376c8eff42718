/**
 * Claude Code itself, as a test client: the pinned `@anthropic-ai/claude-code` from the npm registry,
 * installed once into a cache directory and run non-interactively (`-p`, JSON output) against a base URL on
 * loopback, with a throwaway HOME and config directory and everything non-essential switched off.
 *
 * Deno cannot run the package: since 2.x it ships a native binary per platform that its postinstall script
 * copies over a shell stub, and Deno does not run install scripts. npm installs it (scripts off, so nothing
 * from the package runs at install time) and node starts the package's own `cli-wrapper.cjs`, which finds
 * the platform binary the way the package intends.
 */
import { join } from "node:path";

/** The pinned Claude Code release. */
export const CLAUDE_CODE_VERSION = "2.1.331";
const PACKAGE = "@anthropic-ai/claude-code";
const INSTALL_TIMEOUT_MS = 240_000;

/** An installed Claude Code, or why it could not be obtained. */
export type ClaudeCodeCli = { wrapper: string } | { unavailable: string };

function cacheRoot(): string {
  const explicit = Deno.env.get("SWITCHYARD_TEST_CACHE");
  if (explicit) return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME");
  return join(xdg ?? (home ? join(home, ".cache") : Deno.makeTempDirSync()), "switchyard");
}

async function installedVersion(dir: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(
      await Deno.readTextFile(join(dir, "node_modules", PACKAGE, "package.json")),
    );
    return manifest.version;
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

/**
 * Installs the pinned release into `<cache>/claude-code-<version>` unless it is there already (an install
 * goes to a fresh directory renamed into place, so a run cut short leaves nothing half-installed behind).
 */
export async function obtainClaudeCode(): Promise<ClaudeCodeCli> {
  const dir = join(cacheRoot(), `claude-code-${CLAUDE_CODE_VERSION}`);
  const wrapper = join(dir, "node_modules", PACKAGE, "cli-wrapper.cjs");
  if (await installedVersion(dir) === CLAUDE_CODE_VERSION) return { wrapper };
  const signal = AbortSignal.timeout(INSTALL_TIMEOUT_MS);
  const node = await run("node", ["--version"], signal);
  if (!node.ok) return { unavailable: `node is not available to run Claude Code (${node.err.trim()})` };
  await Deno.mkdir(cacheRoot(), { recursive: true });
  const staging = await Deno.makeTempDir({ dir: cacheRoot(), prefix: ".claude-code-install-" });
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
    `${PACKAGE}@${CLAUDE_CODE_VERSION}`,
  ], signal);
  if (!npm.ok || await installedVersion(staging) !== CLAUDE_CODE_VERSION) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    return { unavailable: `npm could not install ${PACKAGE}@${CLAUDE_CODE_VERSION}: ${npm.err.trim()}` };
  }
  try {
    await Deno.rename(staging, dir);
  } catch {
    // Another run installed it first: keep theirs.
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
  return { wrapper };
}

/** One non-interactive Claude Code run. */
export interface ClaudeCodeRun {
  /** Exit code. */
  code: number;
  /** The `--output-format json` result object (undefined when stdout was not one JSON value). */
  result?: Record<string, unknown>;
  /** Raw stdout and stderr, for failure messages. */
  stdout: string;
  stderr: string;
}

/** What a run needs. */
export interface ClaudeCodeOptions {
  /** The installed CLI. */
  wrapper: string;
  /** ANTHROPIC_BASE_URL (the gateway on loopback). */
  baseUrl: string;
  /** ANTHROPIC_API_KEY (a gateway key); absent: the `apiKeyHelper` of `settings` supplies it. */
  apiKey?: string;
  /** Written to `<home>/.claude/settings.json` before the run (e.g. `apiKeyHelper`). */
  settings?: Record<string, unknown>;
  /** `--model`. */
  model: string;
  /** The haiku-class model for side requests (titles, summaries). */
  smallModel: string;
  /** The prompt (`-p`). */
  prompt: string;
  /** Working directory (the Bash tool runs there). */
  cwd: string;
  /** Throwaway HOME (config, sessions). */
  home: string;
  /** A loopback proxy every non-loopback request would go to (to prove there are none). */
  proxyUrl: string;
  /** Kill the run after this long. */
  timeoutMs?: number;
}

/**
 * Runs `claude -p` with only the environment listed here: nothing from the caller's environment leaks in
 * (no real key, no user config), and every switch that keeps Claude Code off the network is set.
 */
export async function runClaudeCode(options: ClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.home,
    CLAUDE_CONFIG_DIR: join(options.home, ".claude"),
    TMPDIR: options.home,
    SHELL: "/bin/bash",
    ANTHROPIC_BASE_URL: options.baseUrl,
    ...(options.apiKey !== undefined ? { ANTHROPIC_API_KEY: options.apiKey } : {}),
    ANTHROPIC_DEFAULT_HAIKU_MODEL: options.smallModel,
    ANTHROPIC_SMALL_FAST_MODEL: options.smallModel,
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: "1",
    // Anything that is not the gateway goes to the trap proxy, which refuses and records it.
    HTTPS_PROXY: options.proxyUrl,
    HTTP_PROXY: options.proxyUrl,
    https_proxy: options.proxyUrl,
    http_proxy: options.proxyUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
  if (options.settings) {
    await Deno.mkdir(join(options.home, ".claude"), { recursive: true });
    await Deno.writeTextFile(
      join(options.home, ".claude", "settings.json"),
      JSON.stringify(options.settings),
    );
  }
  const args = [
    options.wrapper,
    "-p",
    options.prompt,
    "--model",
    options.model,
    "--output-format",
    "json",
    "--allowedTools",
    "Bash",
  ];
  const out = await new Deno.Command("node", {
    args,
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs ?? 90_000),
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  let result: Record<string, unknown> | undefined;
  try {
    result = JSON.parse(stdout);
  } catch {
    result = undefined;
  }
  return { code: out.code, result, stdout, stderr: new TextDecoder().decode(out.stderr) };
}
