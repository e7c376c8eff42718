/**
 * What every task script of the suite does the same way: parse the command line (bad arguments print the
 * error and the usage, exit 2; `--help`/`-h` prints the usage, exit 0) and turn the outcome of `main` into
 * the process exit code (an uncaught error prints one `error:` line, exit 1, never a stack trace).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { isAppError } from "../errors.ts";

/** The result of `parseArgs` for a given configuration. */
export type ParsedCommandLine<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * Parses `config.args` with `node:util` parseArgs, adding `--help`/`-h`. Returns the parsed values, or the
 * exit code to return at once: 2 after printing the parse error and `usage` on stderr, 0 after printing
 * `usage` on stdout for `--help`.
 */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
  usage: string,
): ParsedCommandLine<T> | number {
  let parsed;
  try {
    parsed = parseArgs({
      ...config,
      options: { ...config.options, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    return usageError((error as Error).message, usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return parsed as ParsedCommandLine<T>;
}

/** Prints `error: <message>` and the usage on stderr; returns exit code 2 (a usage error). */
export function usageError(message: string, usage: string): number {
  console.error(`error: ${message}\n\n${usage}`);
  return 2;
}

/**
 * Runs a task script's `main` and exits with the code it returns. An error it throws prints one line
 * (`error: <message>`) and exits 1.
 */
export async function runMain(main: () => Promise<number>): Promise<never> {
  try {
    Deno.exit(await main());
  } catch (error) {
    console.error(`error: ${isAppError(error) ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
