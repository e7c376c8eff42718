/** Shared helpers for compiler tests: an in-memory repository and a compile shortcut. */
import { compile } from "../../compiler/mod.ts";
import type { CompileOptions, CompileResult, FileReader } from "../../compiler/api.ts";

/** A reader over an in-memory map of repository-relative paths. */
export function memoryRepo(files: Record<string, string>): FileReader {
  return (p) => Promise.resolve(files[p]);
}

/** Compiles one in-memory workflow (`.github/workflows/w.md`) and returns its lock text or throws with diagnostics. */
export async function compileOne(
  markdown: string,
  extra: Record<string, string> = {},
  options: Partial<CompileOptions> = {},
): Promise<{ lock: string; result: CompileResult }> {
  const result = await compile({
    repoRoot: "/repo",
    workflows: [".github/workflows/w.md"],
    scheduleSeed: "acme/widgets",
    readFile: memoryRepo({ ".github/workflows/w.md": markdown, ...extra }),
    ...options,
  });
  const w = result.workflows[0];
  if (!w?.lockContent) {
    throw new Error(JSON.stringify([...result.diagnostics, ...(w?.diagnostics ?? [])], null, 2));
  }
  return { lock: w.lockContent, result };
}

/** Diagnostics of compiling one in-memory workflow. */
export async function diagnosticsOf(markdown: string, extra: Record<string, string> = {}) {
  const result = await compile({
    repoRoot: "/repo",
    workflows: [".github/workflows/w.md"],
    readFile: memoryRepo({ ".github/workflows/w.md": markdown, ...extra }),
  });
  return [...result.diagnostics, ...(result.workflows[0]?.diagnostics ?? [])];
}
