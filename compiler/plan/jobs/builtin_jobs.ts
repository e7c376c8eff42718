/**
 * The workflow's `jobs:` as gh-aw assembles them from the workflow and its imports, and the `jobs.<built-in>`
 * entries that customise a generated job: their `setup-steps` open the job, their `pre-steps` go right after
 * the job's setup step (gh-aw's `applyBuiltinJobPreSteps`).
 */
import type { JobPlan, StepPlan } from "../types.ts";
import { Styled } from "../../yaml/writer.ts";
import { BUILTIN_JOB_NAMES, orderStepKeys, type RawJobs } from "./custom.ts";
import { mappingOf } from "../../source/values.ts";

/** The step-list fields an imported job and the workflow's own job of the same name concatenate. */
function injectedFields(name: string): string[] {
  return name === "activation" ? ["setup-steps", "pre-steps", "steps"] : ["setup-steps", "pre-steps"];
}

/**
 * gh-aw's `mergeJobInjectedSteps`: `first`'s job with each injected step list of `second` put after `first`'s
 * own (and `continue-on-error` taken from `second` when `first` has none). Undefined when there is nothing to
 * merge, so the caller keeps `first` as it is.
 */
function mergeInjected(
  name: string,
  first: Record<string, unknown>,
  second: Record<string, unknown>,
  keepFirstScalar: boolean,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...(keepFirstScalar ? first : second) };
  let mergedAny = false;
  for (const field of injectedFields(name)) {
    const a = Array.isArray(first[field]) ? first[field] as unknown[] : undefined;
    const b = Array.isArray(second[field]) ? second[field] as unknown[] : undefined;
    if (!a && !b) continue;
    out[field] = [...(a ?? []), ...(b ?? [])];
    mergedAny = true;
  }
  const main = keepFirstScalar ? first : second, other = keepFirstScalar ? second : first;
  if (!("continue-on-error" in main) && "continue-on-error" in other) {
    out["continue-on-error"] = other["continue-on-error"];
    mergedAny = true;
  }
  return mergedAny ? out : undefined;
}

const asJobs = (v: unknown): RawJobs => mappingOf(v);

/**
 * The workflow's `jobs:` merged with its imports' (gh-aw's `mergeJobsFromYAMLImports`): an imported job is
 * added unless the workflow defines one of that name; when both do (or two imports do), only their injected
 * step lists merge, the imports' steps first, in import order.
 */
export function workflowJobs(main: unknown, imported: unknown[]): RawJobs {
  const accum: RawJobs = {};
  for (const jobs of imported.map(asJobs)) {
    for (const [name, job] of Object.entries(jobs)) {
      if (!(name in accum)) accum[name] = job;
      else accum[name] = mergeInjected(name, accum[name], job, true) ?? accum[name];
    }
  }
  const result: RawJobs = { ...asJobs(main) };
  for (const [name, job] of Object.entries(accum)) {
    if (!(name in result)) result[name] = job;
    else result[name] = mergeInjected(name, job, result[name], false) ?? result[name];
  }
  return result;
}

/** gh-aw's pre-step anchor: after the setup step, else before the first token mint or checkout, else last. */
function preStepsIndex(steps: StepPlan[]): number {
  const setup = steps.findLastIndex((s) => s.id === "setup");
  if (setup >= 0) return setup + 1;
  const usesOf = (s: StepPlan) =>
    s.uses instanceof Styled ? s.uses.value : typeof s.uses === "string" ? s.uses : "";
  const mint = steps.findIndex((s) => usesOf(s).startsWith("actions/create-github-app-token@"));
  const checkout = steps.findIndex((s) => usesOf(s).startsWith("actions/checkout@"));
  const found = [mint, checkout].filter((i) => i >= 0);
  return found.length > 0 ? Math.min(...found) : steps.length;
}

/**
 * Applies the `setup-steps` and `pre-steps` of each `jobs.<built-in>` entry to the generated job of that name
 * (a job this workflow does not generate is left alone, as gh-aw skips it). Steps are pinned by `pin` and
 * written in gh-aw's step key order.
 */
export async function applyBuiltinJobSteps(
  jobs: Record<string, JobPlan>,
  raw: RawJobs,
  pin: (steps: unknown[]) => Promise<StepPlan[]>,
): Promise<void> {
  for (const [name, cfg] of Object.entries(raw)) {
    if (!BUILTIN_JOB_NAMES.includes(name)) continue;
    const target = name === "pre-activation" ? "pre_activation" : name;
    const job = jobs[target];
    if (!job || !Array.isArray(job.steps)) continue;
    const list = (field: string) => Array.isArray(cfg[field]) ? cfg[field] as unknown[] : [];
    const setup = (await pin(list("setup-steps"))).map(orderStepKeys);
    const pre = (await pin(list("pre-steps"))).map(orderStepKeys);
    if (setup.length === 0 && pre.length === 0) continue;
    const steps = [...job.steps as StepPlan[]];
    steps.splice(preStepsIndex(steps), 0, ...pre);
    job.steps = [...setup, ...steps];
  }
}
