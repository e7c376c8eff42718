/** Runs `awc` in-process against a temporary git repository, capturing output and the exit code. */
import type { CompileFunction } from "../../../compiler/api.ts";
import { runCli } from "../../../compiler/cli/mod.ts";
import { captureOutput } from "../../../compiler/cli/output.ts";
import { createCompileDouble } from "./compile_double.ts";

/** Outcome of one invocation. */
export interface CliRun {
  /** Exit code. */
  code: number;
  /** Everything written to stdout. */
  stdout: string;
  /** Everything written to stderr. */
  stderr: string;
}

/** Options of {@link awc}. */
export interface AwcOptions {
  /** Working directory. */
  cwd: string;
  /** Environment (defaults to none: no token, no host). */
  env?: Record<string, string | undefined>;
  /** Compile function (defaults to a fresh test double). */
  compile?: CompileFunction;
  /** Path reported as the running executable. */
  execPath?: string;
  /** Version reported by awc. */
  version?: string;
  /** Stops `--watch`. */
  signal?: AbortSignal;
}

/** Runs `awc <argv>` in-process. */
export async function awc(argv: string[], options: AwcOptions): Promise<CliRun> {
  const output = captureOutput();
  const code = await runCli(argv, {
    compile: options.compile ?? createCompileDouble().compile,
    env: options.env ?? {},
    cwd: options.cwd,
    output,
    sleep: () => Promise.resolve(),
    version: options.version ?? "0.1.0",
    execPath: options.execPath ?? "/usr/bin/deno",
    signal: options.signal,
  });
  return { code, stdout: output.stdout.join(""), stderr: output.stderr.join("") };
}

/** Runs git in `cwd`, throwing on failure. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=test",
      "-c",
      "user.email=test@example.com",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(result.stderr)}`);
  return new TextDecoder().decode(result.stdout);
}

/** A temporary git repository with `files` committed; removed on dispose. */
export async function tempRepo(
  files: Record<string, string>,
  remote = "https://github.com/octo/demo.git",
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "awc-cli-" });
  await git(path, "init", "-q", "-b", "main");
  await git(path, "remote", "add", "origin", remote);
  await writeFiles(path, files);
  if (Object.keys(files).length > 0) {
    await git(path, "add", "-A");
    await git(path, "commit", "-q", "-m", "initial");
  }
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}) };
}

/** Writes files under `root`, creating folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = `${root}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
}
