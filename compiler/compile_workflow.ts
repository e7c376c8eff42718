/**
 * Compiles one workflow: source (parse, validate, resolve imports) → plan → emit. The driver only; each
 * stage lives in its folder (source/, plan/, emit/).
 */
import type { CompiledWorkflow, Diagnostic, FileReader } from "./api.ts";
import type { ContainerPin } from "./source/container_pins.ts";
import { loadWorkflowSource } from "./source/workflow_source.ts";
import { planWorkflow } from "./plan/plan_workflow.ts";
import type { PinResolver } from "./plan/pins.ts";
import { emitLock } from "./emit/lock.ts";
import type { GhAwTarget } from "./targets/mod.ts";
import { newerKeyRefusals } from "./source/frontmatter_keys.ts";

const refusalsByTarget = new WeakMap<GhAwTarget, Record<string, string>>();

/** Why the target refuses each newer frontmatter key, computed once per target. */
function targetRefusals(target: GhAwTarget): Record<string, string> {
  let refusals = refusalsByTarget.get(target);
  if (!refusals) refusalsByTarget.set(target, refusals = newerKeyRefusals(target));
  return refusals;
}

/** Options for one workflow compile. */
export interface WorkflowCompileOptions {
  source: string;
  read: FileReader;
  actionMode: "dev" | "release";
  ghes: boolean;
  seedPrefix: string;
  pins: PinResolver;
  now: Date;
  failureIssueExpires?: number;
  /** `aw.json` `container_pins`: images replaced by `image@digest` wherever the lock pulls them. */
  containerPins?: Readonly<Record<string, ContainerPin>>;
  /** The gh-aw release compiled for (default v0.76.1). */
  target?: GhAwTarget;
}

/** Compiles a single workflow file. */
export async function compileWorkflow(options: WorkflowCompileOptions): Promise<CompiledWorkflow> {
  const lockPath = options.source.replace(/\.md$/, ".lock.yml");
  const diagnostics: Diagnostic[] = [];
  const dependencies = [options.source];
  const result: CompiledWorkflow = { source: options.source, lockPath, dependencies, diagnostics };
  const source = await loadWorkflowSource(
    options.source,
    options.read,
    diagnostics,
    dependencies,
    options.target?.frontmatterKeys,
    options.target ? targetRefusals(options.target) : undefined,
  );
  if (!source) return result;
  const plan = await planWorkflow(source, options, diagnostics);
  if (!plan) return result;
  return { ...result, lockContent: emitLock(plan) };
}
