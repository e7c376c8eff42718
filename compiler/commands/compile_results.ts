/** What `compile` and `compile --watch` both do with a compile result: write it, list its diagnostics. */
import type { CompileResult, Diagnostic } from "../api.ts";
import { writeCompileResult } from "../mod.ts";

/** Writes each lock whose text changed and the updated actions-lock.json (the core's writer); returns the written paths. */
export async function writeChangedFiles(repoRoot: string, result: CompileResult): Promise<string[]> {
  return (await writeCompileResult(repoRoot, result)).written;
}

/** Every diagnostic of a result, workflow ones first. */
export function allDiagnostics(result: CompileResult): Diagnostic[] {
  return [...result.workflows.flatMap((w) => w.diagnostics), ...result.diagnostics];
}
