/** What every command receives: injected dependencies that touch the world, so tests can pass their own. */
import type { CompileFunction } from "../api.ts";
import { apiBaseUrl, createGitHubClient, type GitHubClient, tokenFromEnv } from "../github/client.ts";
import { createOutput, type Output } from "./output.ts";

/** Dependencies of the CLI. */
export interface CliDeps {
  /** The compiler core's entry point. */
  compile: CompileFunction;
  /** Environment variables (read only here and in `main.ts`). */
  env: Record<string, string | undefined>;
  /** Working directory. */
  cwd: string;
  /** Where text goes. */
  output: Output;
  /** The fetch used for GitHub (tests point it at a local server through `GITHUB_API_URL`). */
  fetch?: typeof fetch;
  /** Sleep used between HTTP retries. */
  sleep?: (ms: number) => Promise<void>;
  /** Version of this `awc`. */
  version: string;
  /** Path of the running executable (self-update replaces it when it is an `awc` binary). */
  execPath: string;
  /** Stops `compile --watch` (tests); the real CLI watches until interrupted. */
  signal?: AbortSignal;
}

/** Builds the GitHub client from the environment. */
export function githubClient(deps: CliDeps): GitHubClient {
  return createGitHubClient({
    baseUrl: apiBaseUrl(deps.env),
    token: tokenFromEnv(deps.env),
    fetch: deps.fetch,
    sleep: deps.sleep,
  });
}

/** Default dependencies for a real process. */
export function processDeps(compile: CompileFunction, version: string): CliDeps {
  return {
    compile,
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    output: createOutput({
      stdout: (t) => Deno.stdout.writeSync(new TextEncoder().encode(t)),
      stderr: (t) => Deno.stderr.writeSync(new TextEncoder().encode(t)),
      stderrIsTty: Deno.stderr.isTerminal(),
    }),
    version,
    execPath: Deno.execPath(),
  };
}
