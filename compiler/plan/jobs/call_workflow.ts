/**
 * The `call-<worker>` jobs of `safe-outputs.call-workflow`: one reusable-workflow call per allowed worker,
 * run after `safe_outputs` when the agent picked that worker. A `workflow_call` can only be a job of its
 * own, so the handler in `safe_outputs` records the choice and its payload, and these jobs fan out on it.
 */
import type { JobPlan } from "../types.ts";
import { plain, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import type { WorkflowTarget } from "../safe_outputs/dynamic_tools.ts";
import { listOf, objectOf } from "../../source/values.ts";

const PAYLOAD = "needs.safe_outputs.outputs.call_workflow_payload";

/** The workers `call-workflow` lists, in the author's order. */
function workerNames(so: SafeOutputsPlan): string[] {
  const cfg = so.configs["call-workflow"];
  const list = Array.isArray(cfg) ? cfg : listOf(objectOf(cfg).workflows);
  return list.map(String);
}

/** `call-` and the worker's name with anything but letters, digits, `-` and `_` made a dash. */
export function callJobName(worker: string): string {
  return "call-" + worker.replace(/[^A-Za-z0-9_-]/g, "-");
}

/** Two permission sets joined, the higher level winning; keys sorted. */
function joinPermissions(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  const rank = (level: string | undefined) => level === "write" ? 2 : level === "read" ? 1 : 0;
  const out: Record<string, string> = { ...a };
  for (const [scope, level] of Object.entries(b)) {
    if (out[scope] === undefined || rank(level) > rank(out[scope])) out[scope] = level;
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

/** The worker's declared inputs, each read from the payload the handler recorded (`payload` is the payload). */
function inputsOf(target: WorkflowTarget): Record<string, YValue> {
  const out: Record<string, YValue> = {};
  for (const name of Object.keys(target.inputs).sort()) {
    out[name] = plain(name === "payload" ? `\${{ ${PAYLOAD} }}` : `\${{ fromJSON(${PAYLOAD}).${name} }}`);
  }
  return out;
}

/**
 * Builds the call jobs, by name. `callerPermissions` are the workflow's own; the job grants them joined
 * with what the worker's jobs ask for, since a called workflow cannot get more than its caller job holds.
 */
export function callWorkflowJobs(
  so: SafeOutputsPlan,
  targets: WorkflowTarget[],
  callerPermissions: Record<string, string>,
): Record<string, JobPlan> {
  const jobs: Record<string, JobPlan> = {};
  if (!so.types.includes("call-workflow")) return jobs;
  for (const worker of workerNames(so)) {
    const target = targets.find((t) => t.kind === "call" && t.name === worker);
    const job: Record<string, unknown> = {
      needs: "safe_outputs",
      if: plain(`needs.safe_outputs.outputs.call_workflow_name == '${worker}'`),
    };
    const permissions = joinPermissions(callerPermissions, target?.jobPermissions ?? {});
    if (Object.keys(permissions).length > 0) job.permissions = permissions;
    job.uses = plain(`./.github/workflows/${worker}${target?.extension ?? ".lock.yml"}`);
    const inputs = target ? inputsOf(target) : {};
    if (Object.keys(inputs).length > 0) job.with = inputs;
    // The worker's declared secrets are passed by name; a worker that declares none inherits them all.
    const secrets = [...(target?.secrets ?? [])].sort();
    job.secrets = secrets.length > 0
      ? Object.fromEntries(secrets.map((s) => [s, plain(`\${{ secrets.${s} }}`)]))
      : "inherit";
    // A reusable-workflow call has neither a runner nor steps: the emitter writes only the keys present.
    jobs[callJobName(worker)] = job as unknown as JobPlan;
  }
  return jobs;
}
