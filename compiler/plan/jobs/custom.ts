/**
 * Frontmatter `jobs:` (custom jobs) as gh-aw places them around the built-in jobs: which run before
 * `activation`, which wait for it, the GH_HOST step every custom job starts with, and the
 * `jobs.pre-activation` block merged into `pre_activation`.
 */
import type { JobPlan, StepPlan } from "../types.ts";
import { Blank, lit, litBare, litNoted, plain, Styled, type YValue } from "../../yaml/writer.ts";
import { jobIf } from "./conditions.ts";
import { DEFAULT_TARGET, type GhAwTarget } from "../../targets/mod.ts";
import { isMapping, isObject, objectOf } from "../../source/values.ts";

/** Names gh-aw reserves for `jobs.pre-activation` (merged into the built-in `pre_activation` job). */
const PRE_ACTIVATION_NAMES = ["pre_activation", "pre-activation"];

/** The raw `jobs:` map of the frontmatter (empty when absent or malformed). */
export type RawJobs = Record<string, Record<string, unknown>>;

/** The explicit `needs:` of a raw job as a list (undefined when the key is absent). */
export function explicitNeeds(raw: Record<string, unknown>): string[] | undefined {
  const n = raw.needs;
  if (n === undefined) return undefined;
  return (Array.isArray(n) ? n : [n]).filter((x): x is string => typeof x === "string");
}

/**
 * gh-aw's `KnownBuiltInJobNames`: a `jobs.<name>` entry under one of these customises the generated job
 * (`pre-activation` blocks, `setup-steps`/`pre-steps`, see builtin_jobs.ts) instead of adding a job.
 */
export const BUILTIN_JOB_NAMES: readonly string[] = [
  "agent",
  "activation",
  ...PRE_ACTIVATION_NAMES,
  "detection",
  "safe_outputs",
  "safe-outputs",
  "upload_assets",
  "upload_code_scanning_sarif",
  "conclusion",
  "unlock",
];

/** Custom job names (sorted), without the entries that customise a built-in job. */
export function customJobNames(jobs: RawJobs): string[] {
  return Object.keys(jobs).filter((n) => !BUILTIN_JOB_NAMES.includes(n)).sort();
}

/** Custom jobs whose `needs.<job>.` appears in `text`. */
export function referencedCustomJobs(text: string, jobs: RawJobs): string[] {
  return customJobNames(jobs).filter((n) => text.includes(`needs.${n}.`));
}

/**
 * Custom jobs `activation` must wait for: those that explicitly need `pre_activation` but not `activation`,
 * and those the prompt reads (`needs.<job>.` in the body) that declare no `needs:` of their own.
 */
export function jobsBeforeActivation(jobs: RawJobs, promptText: string): string[] {
  const out = new Set<string>();
  for (const n of customJobNames(jobs)) {
    // A job that also needs `activation` runs after it, whatever else it needs.
    const needs = explicitNeeds(jobs[n]);
    if (needs?.includes("pre_activation") && !needs.includes("activation")) out.add(n);
  }
  for (const n of referencedCustomJobs(promptText, jobs)) {
    if (explicitNeeds(jobs[n]) === undefined) out.add(n);
  }
  return [...out].sort();
}

/** A job's `needs:` as a list. */
const needsOf = (job: JobPlan | undefined): string[] =>
  job?.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];

/**
 * Makes threat detection run before the custom jobs the safe-output job waits for (`safe-outputs.needs`,
 * e.g. an approval gate): each one that follows `agent` but not `detection` (directly or through other jobs)
 * gets `detection` added to its `needs:`, so nobody approves output that detection has not yet judged.
 * gh-aw leaves such a gate free to run before detection (docs/compiler-differences.md). Returns the jobs
 * changed.
 */
export function gateAfterDetection(jobs: Record<string, JobPlan>, gates: string[]): string[] {
  if (!jobs.detection) return [];
  const reaches = (name: string, target: string, seen = new Set<string>()): boolean => {
    if (seen.has(name)) return false;
    seen.add(name);
    return needsOf(jobs[name]).some((n) => n === target || reaches(n, target, seen));
  };
  const changed: string[] = [];
  for (const name of gates) {
    const job = jobs[name];
    if (!job || BUILTIN_JOB_NAMES.includes(name)) continue;
    if (!reaches(name, "agent") || reaches(name, "detection")) continue;
    job.needs = [...needsOf(job), "detection"];
    changed.push(name);
  }
  return changed;
}

/** The step gh-aw puts first in every custom job so `gh` targets the right GitHub host. */
export function ghHostStep(target: GhAwTarget = DEFAULT_TARGET): StepPlan {
  const script = "# Derive GH_HOST from GITHUB_SERVER_URL so the gh CLI targets the correct\n" +
    "# GitHub instance (GHES/GHEC). On github.com this is a harmless no-op.\n" +
    'GH_HOST="${GITHUB_SERVER_URL#https://}"\nGH_HOST="${GH_HOST#http://}"\necho "GH_HOST=${GH_HOST}" >> "$GITHUB_ENV"\n';
  return {
    name: "Configure GH_HOST for enterprise compatibility",
    id: "ghes-host-config",
    shell: "bash",
    run: target.jobs.ghHostZizmorNote ? litNoted(script, GH_HOST_ZIZMOR_NOTE) : lit(script),
  };
}

/** The zizmor suppression later releases write on the GH_HOST step's `run: |` line. */
const GH_HOST_ZIZMOR_NOTE =
  "zizmor: ignore[github-env] - GITHUB_SERVER_URL is set by GitHub Actions, not user input.";

/** Literal blocks of user-written values keep their blank lines empty, as gh-aw re-marshals them. */
function bareBlocks(v: YValue): YValue {
  if (v instanceof Styled) return v.style === "literal" ? litBare(v.value) : v;
  if (Array.isArray(v)) return v.map(bareBlocks);
  if (v && typeof v === "object" && v.constructor === Object) {
    // Maps inside user steps (with:, env:) are re-marshalled with sorted keys.
    const o = objectOf<YValue>(v);
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, bareBlocks(o[k])]));
  }
  return v;
}

/** gh-aw's step key order (`PriorityStepFields`): these first, then the rest alphabetically. */
export const STEP_PRIORITY = ["name", "id", "if", "run", "uses", "script", "env", "with"];

/** Reorders a user step's keys as gh-aw writes them. */
export function orderStepKeys(step: StepPlan): StepPlan {
  const out: StepPlan = {};
  for (const k of STEP_PRIORITY) if (step[k] !== undefined) out[k] = bareBlocks(step[k]!);
  for (const k of Object.keys(step).filter((k) => !STEP_PRIORITY.includes(k)).sort()) {
    out[k] = bareBlocks(step[k]!);
  }
  return out;
}

/** Strips a `${{ … }}` wrapper from a condition, as gh-aw does for job `if:` values. */
function stripWrapper(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const m = /^\s*\$\{\{\s*([\s\S]*?)\s*\}\}\s*$/.exec(v);
  return m ? m[1] : v;
}

/** Inputs of {@link customJob}. */
export interface CustomJobInput {
  raw: Record<string, unknown>;
  /** The job's steps with actions already pinned. */
  steps: StepPlan[];
  /** Whether the job runs before `activation` (then it gets no automatic `needs: activation`). */
  beforeActivation: boolean;
  /** Converts frontmatter values to writer values. */
  toY: (v: unknown) => YValue;
  /** The gh-aw release compiled for (default v0.76.1). */
  target?: GhAwTarget;
}

/** The text of a `uses:` value (plain string or styled scalar). */
function usesText(v: unknown): string | undefined {
  return typeof v === "string" ? v : v instanceof Styled ? v.value : undefined;
}

/**
 * An `actions/checkout` step keeps no credentials unless it says so: `with.persist-credentials: false` is
 * added when the step does not set the key (gh-aw v0.87's rule for the steps it writes from the frontmatter).
 */
export function withCheckoutCredentialsOff(step: StepPlan): StepPlan {
  const uses = usesText(step.uses)?.trim().replace(/^["']|["']$/g, "").toLowerCase();
  if (!uses || !(uses === "actions/checkout" || uses.startsWith("actions/checkout@"))) return step;
  const w = step.with;
  if (w === undefined || w === null) return { ...step, with: { "persist-credentials": false } };
  if (!isMapping(w)) return step;
  const current = (w as Record<string, YValue>)["persist-credentials"];
  if (current !== undefined && current !== null) return step;
  return { ...step, with: { ...(w as Record<string, YValue>), "persist-credentials": false } };
}

/** Builds one custom job: automatic `needs: activation`, the GH_HOST step, sorted outputs. */
export function customJob(jobInput: CustomJobInput): JobPlan {
  const { raw, toY } = jobInput;
  const style = (jobInput.target ?? DEFAULT_TARGET).jobs.customJobs;
  const needs = explicitNeeds(raw) ?? (jobInput.beforeActivation ? [] : ["activation"]);
  const job: JobPlan = { "runs-on": toY(raw["runs-on"] ?? "ubuntu-latest"), steps: [] };
  if (needs.length > 0) job.needs = [...new Set(needs)].sort();
  for (const [k, v] of Object.entries(raw)) {
    if (k === "steps" || k === "runs-on" || k === "needs") continue;
    if (k === "if") {
      const cond = stripWrapper(v);
      job.if = style.breakLongIf && typeof cond === "string" ? jobIf(cond) : toY(cond);
    } else if (k === "permissions" && isMapping(v)) {
      const p = v;
      // gh-aw v0.76 leaves an empty line after a custom job's permissions.
      job.permissions = {
        ...Object.fromEntries(Object.keys(p).sort().map((x) => [x, String(p[x])])),
        ...(style.permissionsBlankLine ? { "#blank": new Blank() as unknown as string } : {}),
      };
    } else if (k === "outputs" && isMapping(v)) {
      const o = v;
      job.outputs = Object.fromEntries(Object.keys(o).sort().map((x) => [x, toY(o[x])]));
    } else job[k] = toY(v);
  }
  if (Array.isArray(raw.steps)) {
    const steps = style.checkoutPersistCredentials
      ? jobInput.steps.map(withCheckoutCredentialsOff)
      : jobInput.steps;
    return { ...job, steps: [ghHostStep(jobInput.target), ...steps.map(orderStepKeys)] };
  }
  const { steps: _none, ...withoutSteps } = job;
  return withoutSteps as JobPlan;
}

/** The `jobs.pre-activation` (or `pre_activation`) blocks: extra steps and outputs for `pre_activation`. */
export function preActivationExtras(jobs: RawJobs): { steps: unknown[]; outputs: Record<string, unknown> } {
  const steps: unknown[] = [];
  const outputs: Record<string, unknown> = {};
  for (const n of PRE_ACTIVATION_NAMES) {
    const j = jobs[n];
    if (!isObject(j)) continue;
    if (Array.isArray(j.steps)) steps.push(...j.steps);
    if (isObject(j.outputs)) Object.assign(outputs, j.outputs);
  }
  return { steps, outputs };
}

/** Inputs of {@link safeJob}. */
export interface SafeJobInput {
  /** The `safe-outputs.jobs.<name>` entry. */
  raw: Record<string, unknown>;
  /** The job's steps with actions already pinned. */
  steps: StepPlan[];
  /** Normalized (snake_case) job name, also the safe-output type the agent emits. */
  name: string;
  threatDetection: boolean;
  /** Pinned `actions/download-artifact` reference. */
  download: string;
  toY: (v: unknown) => YValue;
}

/**
 * A custom safe-output job (`safe-outputs.jobs.<name>`): runs after the agent (and detection) when the
 * agent emitted its type, downloads the agent output and hands it to each step as `GH_AW_AGENT_OUTPUT`.
 */
export function safeJob(jobInput: SafeJobInput): JobPlan {
  const { raw, toY } = jobInput;
  const base = `(!cancelled()) && needs.agent.result != 'skipped' && ` +
    `contains(needs.agent.outputs.output_types, '${jobInput.name}')`;
  const userIf = raw.if === undefined ? undefined : String(stripWrapper(raw.if));
  const job: JobPlan = {
    ...(typeof raw.name === "string" ? { name: raw.name } : {}),
    needs: ["agent", ...(jobInput.threatDetection ? ["detection"] : []), ...(explicitNeeds(raw) ?? [])],
    if: toY(userIf ? `${base} && (${userIf})` : base),
    "runs-on": toY(raw["runs-on"] ?? "ubuntu-latest"),
    steps: [],
  };
  if (isObject(raw.permissions)) {
    const p = raw.permissions;
    job.permissions = Object.fromEntries(Object.keys(p).sort().map((k) => [k, String(p[k])]));
  }
  const outputFile = "${{ runner.temp }}/gh-aw/safe-jobs/agent_output.json";
  const extraEnv: Record<string, unknown> = {
    GH_AW_AGENT_OUTPUT: outputFile,
    ...objectOf(raw.env),
  };
  const steps: StepPlan[] = [{
    name: "Download agent output artifact",
    "continue-on-error": true,
    uses: plain(jobInput.download),
    with: { name: "agent", path: toY("${{ runner.temp }}/gh-aw/safe-jobs/") },
  }];
  for (const s of jobInput.steps) {
    const env = { ...objectOf<YValue>(s.env) };
    for (const [k, v] of Object.entries(extraEnv)) if (env[k] === undefined) env[k] = toY(v);
    const sorted = Object.fromEntries(Object.keys(env).sort().map((k) => [k, env[k]]));
    steps.push(orderStepKeys({ ...s, env: sorted }));
  }
  job.steps = steps;
  return job;
}
