/**
 * `awc` entry point and `deno compile` target: wires the real compiler core and the process environment
 * into the CLI. Everything it needs is in the module graph, so the compiled binary reads no data files.
 */
import { compile } from "./mod.ts";
import { runCli } from "./cli/mod.ts";
import { processDeps } from "./cli/context.ts";
import { AWC_VERSION } from "./version.ts";

if (import.meta.main) {
  const code = await runCli(Deno.args, processDeps(compile, AWC_VERSION));
  Deno.exit(code);
}
