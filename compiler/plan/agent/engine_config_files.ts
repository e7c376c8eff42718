/** The config files an engine CLI reads from the workspace, written (merged) before it runs. */
import type { StepPlan } from "../types.ts";
import { lit, sq } from "../../yaml/writer.ts";

/** Writes `$BASE_CONFIG` to the file in `$<fileVar>`, deep-merged over what the file already holds. */
export function jqMergeLines(fileVar: string): string[] {
  const file = `"$${fileVar}"`;
  return [
    `if [ -f ${file} ]; then`,
    `  MERGED=$(jq -n --argjson base "$BASE_CONFIG" --argjson existing "$(cat ${file})" '$existing * $base')`,
    `  echo "$MERGED" > ${file}`,
    "else",
    `  echo "$BASE_CONFIG" > ${file}`,
    "fi",
  ];
}

/** Where a provider CLI (Crush, OpenCode) reads its project config and how it spells the permission key. */
export interface ProviderCliConfig {
  /** The config file, relative to the workspace. */
  file: string;
  /** The key of the permission map (`permission` or `permissions`). */
  key: string;
  /** Permissions beside the common ones. */
  extra: string[];
}

/**
 * A provider CLI's project config: every tool allowed inside the sandbox (so the CLI never stops on a
 * permission prompt), merged over the workspace's own config. The agent job and the threat detection both
 * write it before running the CLI.
 */
export function providerCliConfigScript(cli: ProviderCliConfig): string {
  const allow = ["bash", "edit", "read", "glob", "grep", "write", "webfetch", "websearch"];
  const permission = Object.fromEntries([...allow, ...cli.extra].map((k) => [k, "allow"]));
  const config = { agent: { build: { [cli.key]: permission } } };
  return [
    "umask 077",
    'mkdir -p "$GITHUB_WORKSPACE"',
    `CONFIG="$GITHUB_WORKSPACE/${cli.file}"`,
    `BASE_CONFIG='${JSON.stringify(config)}'`,
    ...jqMergeLines("CONFIG"),
    'chmod 600 "$CONFIG"',
  ].join("\n") + "\n";
}

/** The "Write Crush Config" / "Write OpenCode Config" step (a literal block, as gh-aw writes it). */
export function providerCliConfigStep(cli: ProviderCliConfig, cliName: string): StepPlan {
  return { name: `Write ${cliName} Config`, run: lit(providerCliConfigScript(cli)) };
}

/** Merges the JSON in `$<envName>` over the workspace's `<dir>/settings.json` (Gemini's or Antigravity's). */
export function settingsMergeScript(dir: string, envName: string): string {
  return [
    `mkdir -p "$GITHUB_WORKSPACE/${dir}"`,
    `SETTINGS="$GITHUB_WORKSPACE/${dir}/settings.json"`,
    `BASE_CONFIG="$${envName}"`,
    ...jqMergeLines("SETTINGS"),
  ].join("\n") + "\n";
}

/**
 * "Write Gemini Config" / "Write Antigravity Config", right before the CLI runs: `/tmp/` readable and the
 * built-in tools the workflow's tools map to ({@link geminiToolsCore}), merged over the settings file the MCP
 * gateway may have written.
 */
export function geminiSettingsStep(cli: string, dir: string, toolsCore: string[]): StepPlan {
  const envName = `GH_AW_${cli.toUpperCase()}_BASE_CONFIG`;
  const config = { context: { includeDirectories: ["/tmp/"] }, tools: { core: toolsCore } };
  return {
    name: `Write ${cli} Config`,
    run: lit(settingsMergeScript(dir, envName)),
    env: { [envName]: sq(JSON.stringify(config)) },
  };
}

/**
 * Gemini's built-in tools allowed by the workflow's tools (sorted): the read-only file tools always; the shell
 * (`run_shell_command`, or one `run_shell_command(cmd)` per command of a restricted `bash` list, which also
 * lists `extraBash`); `replace` and `write_file` for `edit`; `web_fetch` for `web-fetch`.
 */
export function geminiToolsCore(tools: Record<string, unknown>, extraBash: string[]): string[] {
  const core = ["glob", "grep_search", "list_directory", "read_file", "read_many_files"];
  if ("bash" in tools) {
    const bash = tools.bash;
    const cmds = Array.isArray(bash) ? bash : [];
    if (cmds.length === 0 || cmds.some((c) => c === "*" || c === ":*")) core.push("run_shell_command");
    else {
      const all = [...cmds];
      for (const extra of extraBash) if (!all.includes(extra)) all.push(extra);
      for (const c of all) {
        if (typeof c === "string") {
          core.push(`run_shell_command(${c.endsWith(" *") ? c.slice(0, -2).trimEnd() : c})`);
        }
      }
    }
  }
  if ("edit" in tools) core.push("replace", "write_file");
  if ("web-fetch" in tools) core.push("web_fetch");
  return core.sort();
}
