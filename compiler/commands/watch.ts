/**
 * `compile --watch`: compile everything once, then on each change recompile only the workflows whose
 * `dependencies` include a changed file (a changed shared import recompiles its dependents only). A new
 * workflow file is compiled on its own.
 */
import { relative } from "node:path";
import type { CompileOptions } from "../api.ts";
import type { CliDeps } from "../cli/context.ts";
import { formatDiagnostic } from "../cli/output.ts";
import { allDiagnostics, writeChangedFiles } from "./compile_results.ts";

/** Runs until `deps.signal` aborts (or forever in a real process). */
export async function watchAndRecompile(deps: CliDeps, options: CompileOptions): Promise<void> {
  const root = options.repoRoot;
  const dependents = new Map<string, Set<string>>();
  const compileSome = async (workflows: string[] | undefined) => {
    const result = await deps.compile({ ...options, workflows });
    for (const w of result.workflows) {
      for (const dep of w.dependencies) {
        if (!dependents.has(dep)) dependents.set(dep, new Set());
        dependents.get(dep)!.add(w.source);
      }
    }
    const written = await writeChangedFiles(root, result);
    for (const d of allDiagnostics(result)) deps.output.err(formatDiagnostic(d));
    const names = result.workflows.map((w) => w.source).join(", ");
    deps.output.err(
      `[watch] compiled ${names || "nothing"}; wrote ${written.length ? written.join(", ") : "nothing"}`,
    );
  };
  // Watch before the first compile so that no edit made meanwhile is missed.
  const watcher = Deno.watchFs(`${root}/.github`, { recursive: true });
  deps.signal?.addEventListener("abort", () => watcher.close(), { once: true });
  await compileSome(options.workflows);
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = Promise.resolve();
  const flush = () => {
    const changed = [...pending];
    pending = new Set();
    running = running.then(async () => {
      const targets = new Set<string>();
      for (const file of changed) {
        for (const source of dependents.get(file) ?? []) targets.add(source);
        if (!dependents.has(file) && /^\.github\/workflows\/[^/]+\.md$/.test(file)) targets.add(file);
      }
      if (targets.size > 0) await compileSome([...targets].sort());
    });
  };
  try {
    for await (const event of watcher) {
      for (const path of event.paths) {
        const rel = relative(root, path).split("\\").join("/");
        if (!rel.endsWith(".md")) continue;
        pending.add(rel);
      }
      if (pending.size === 0) continue;
      clearTimeout(timer);
      timer = setTimeout(flush, 100);
    }
  } finally {
    clearTimeout(timer);
    await running;
  }
}
