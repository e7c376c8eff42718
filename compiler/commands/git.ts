/** The few git queries the commands need, through the `git` executable. */

/** Runs git in `cwd`; undefined when git fails or is absent. */
export async function git(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    const result = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "null" }).output();
    return result.success ? new TextDecoder().decode(result.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** The repository root containing `cwd`, or undefined outside a git repository. */
export async function gitRoot(cwd: string): Promise<string | undefined> {
  return (await git(cwd, ["rev-parse", "--show-toplevel"]))?.trim() || undefined;
}

/** `owner/repo` parsed from a remote URL (https, ssh, scp-like); undefined if not a GitHub-style URL. */
export function slugFromRemote(url: string): string | undefined {
  const match = url.trim().match(/[:/]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** The host of a remote URL (`github.com`, `ghe.example.com`). */
export function hostFromRemote(url: string): string | undefined {
  const trimmed = url.trim();
  const scp = trimmed.match(/^[^@/]+@([^:/]+):/);
  if (scp) return scp[1];
  try {
    return new URL(trimmed).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** The URL of the `origin` remote. */
export async function originUrl(root: string): Promise<string | undefined> {
  return (await git(root, ["remote", "get-url", "origin"]))?.trim() || undefined;
}
