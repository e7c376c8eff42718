/** How an engine CLI's config file in the workspace is written: merged over what the file already holds. */

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

/** Merges the JSON in `$<envName>` over the workspace's `<dir>/settings.json` (Gemini's or Antigravity's). */
export function settingsMergeScript(dir: string, envName: string): string {
  return [
    `mkdir -p "$GITHUB_WORKSPACE/${dir}"`,
    `SETTINGS="$GITHUB_WORKSPACE/${dir}/settings.json"`,
    `BASE_CONFIG="$${envName}"`,
    ...jqMergeLines("SETTINGS"),
  ].join("\n") + "\n";
}
