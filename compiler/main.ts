/**
 * `awc` entry point and `deno compile` target: wires the real compiler core and the process environment
 * into the CLI. Everything it needs is in the module graph, so the compiled binary reads no data files.
 */
import { compile } from "./mod.ts";
import { runCli } from "./cli/mod.ts";
import { processDeps } from "./cli/context.ts";
import { AWC_VERSION } from "./version.ts";

if (import.meta.main) {
  let code: number;
  try {
    code = await runCli(Deno.args, processDeps(compile, AWC_VERSION));
  } catch (error) {
    // A bug, not a user mistake: say so plainly, with the stack for the report.
    console.error(
      `awc: internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`,
    );
    console.error("Please report this with the command you ran.");
    code = 1;
  }
  Deno.exit(code);
}
