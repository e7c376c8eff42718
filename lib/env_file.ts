/** Reading `KEY=VALUE` env files such as the committed `local.env` (for tests that start the local suite). */

/** Parses env-file text: `KEY=VALUE` lines, `#` comments, optional surrounding quotes. */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [index, rawLine] of text.split(/\r?\n/).entries()) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      throw new SyntaxError(`env file line ${index + 1} is not KEY=VALUE: ${JSON.stringify(rawLine)}`);
    }
    env[match[1]] = match[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return env;
}

/** Reads the repository's committed `local.env`. */
export async function readLocalEnv(): Promise<Record<string, string>> {
  return parseEnvFile(await Deno.readTextFile(new URL("../local.env", import.meta.url)));
}
