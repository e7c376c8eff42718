/** The config files an engine CLI reads from the workspace, written (merged) before it runs. */
import type { StepPlan } from "../types.ts";
import { lit } from "../../yaml/writer.ts";

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

/**
 * Crush's or OpenCode's project config: every tool allowed inside the sandbox (so the CLI never stops on a
 * permission prompt), merged over the workspace's own config (the two CLIs spell the key differently). The
 * agent job and the threat detection both write it before running the CLI.
 */
export function providerCliConfigScript(engine: "crush" | "opencode"): string {
  const allow = ["bash", "edit", "read", "glob", "grep", "write", "webfetch", "websearch"];
  const permission = Object.fromEntries(
    [...allow, ...(engine === "crush" ? ["external_directory"] : [])].map((k) => [k, "allow"]),
  );
  const config = { agent: { build: { [engine === "crush" ? "permission" : "permissions"]: permission } } };
  return [
    "umask 077",
    'mkdir -p "$GITHUB_WORKSPACE"',
    `CONFIG="$GITHUB_WORKSPACE/${engine === "crush" ? ".crush.json" : "opencode.jsonc"}"`,
    `BASE_CONFIG='${JSON.stringify(config)}'`,
    ...jqMergeLines("CONFIG"),
    'chmod 600 "$CONFIG"',
  ].join("\n") + "\n";
}

/** The "Write Crush Config" / "Write OpenCode Config" step (a literal block, as gh-aw writes it). */
export function providerCliConfigStep(engine: "crush" | "opencode", cliName: string): StepPlan {
  return { name: `Write ${cliName} Config`, run: lit(providerCliConfigScript(engine)) };
}
