/** Runs a `deno task` as a user does (a real subprocess) for the operations CLI tests. */

const ROOT = new URL("../../", import.meta.url).pathname;

/** What a task run printed and returned. */
export interface TaskResult {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/** Runs `deno task -q <name> <args>` in the repository root with `env` added to the environment. */
export async function task(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<TaskResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", name, ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** Parses a task's JSON stdout, failing with its stderr when it did not succeed. */
export function jsonOf<T>(result: TaskResult): T {
  if (result.code !== 0) throw new Error(`task failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
