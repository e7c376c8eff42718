/** Planning of the jobs after the agent: safe outputs, memory, assets, experiments, conclusion, custom jobs. */
import { applyBuiltinJobSteps } from "./jobs/builtin_jobs.ts";
import { asTypedSteps } from "./user_steps.ts";
import { artifactName } from "./steps.ts";
import {
  pushExperimentsStateJob,
  pushRepoMemoryJob,
  repoMemories,
  updateCacheMemoryJob,
} from "./jobs/memory.ts";
import { uploadAssetsJob } from "./jobs/assets.ts";
import { customJob, customJobNames, gateAfterDetection, safeJob } from "./jobs/custom.ts";
import { sanitizeRunStep } from "./jobs/run_expressions.ts";
import { safeOutputsJob } from "./jobs/safe_outputs.ts";
import { conclusionJob } from "./jobs/conclusion.ts";
import { locksForAgent, unlockJob } from "./jobs/unlock.ts";
import { callWorkflowJobs } from "./jobs/call_workflow.ts";
import { UPLOAD_SARIF_JOB, uploadSarifJob, uploadsSarif } from "./jobs/code_scanning.ts";
import { diagnostic } from "../source/diagnostics.ts";
import { toY } from "./workflow_values.ts";
import { effectiveCacheMemory, guardPolicyOf } from "./agent/memory.ts";

import type { Gates, Planning } from "./planning.ts";
import { isObject } from "../source/values.ts";

/** `safe_outputs`, the custom safe-output jobs, memory/asset/experiment jobs and `conclusion`. */
export async function planOutputJobs(planning: Planning): Promise<void> {
  const { data, merged, engine, safeOutputs, ctx, network, jobs, pinText, pinSteps, timeout } = planning;
  const rawJobs = planning.rawJobs;
  // The workflow's own checkout (no other repository): its token uploads the SARIF file.
  const ownCheckout = merged.checkout.find((c) => c.repository === undefined && (c.path ?? "") === "");
  jobs.safe_outputs = safeOutputsJob(
    ctx,
    safeOutputs,
    network.allowed,
    typeof data.emoji === "string" ? data.emoji : undefined,
    undefined,
    merged.checkout,
  );
  const conclusionExtra: string[] = [];
  // The issue is unlocked before the safe outputs act on it, and the conclusion reports after both.
  if (locksForAgent(data.on.triggers)) {
    jobs.unlock = unlockJob(ctx, safeOutputs.threatDetection);
    (jobs.safe_outputs.needs as string[]).push("unlock");
    conclusionExtra.push("unlock");
  }
  /** Jobs that carry out safe outputs beside `safe_outputs` (named to the status comment's update). */
  const safeOutputJobs: string[] = [];
  // Custom safe-output jobs (safe-outputs.jobs, imports merged).
  const safeJobsRaw = safeOutputs.global.jobs ?? {};
  for (
    const raw0 of Object.keys(safeJobsRaw).sort((a, b) =>
      a.replace(/-/g, "_") < b.replace(/-/g, "_") ? -1 : 1
    )
  ) {
    const name = raw0.replace(/-/g, "_");
    const raw = safeJobsRaw[raw0] ?? {};
    jobs[name] = safeJob({
      raw,
      name,
      // gh-aw writes these steps through its step conversion (a line of only spaces comes back empty).
      steps: await pinSteps(raw.steps, "convert-step"),
      threatDetection: safeOutputs.threatDetection,
      download: ctx.refs.download,
      toY,
    });
    conclusionExtra.push(name);
    safeOutputJobs.push(name);
  }
  // Without threat detection the agent's own actions/cache step saves the memory; no separate job is needed.
  if (ctx.cacheMemory && safeOutputs.threatDetection) {
    jobs.update_cache_memory = updateCacheMemoryJob(
      ctx,
      safeOutputs.threatDetection,
      await pinText("actions/cache/save", "v5.0.5"),
      effectiveCacheMemory(data.tools, merged.tools),
      guardPolicyOf(merged.tools.github),
    );
    conclusionExtra.push("update_cache_memory");
  }
  // A staged run still has the job: the push script previews what it would publish.
  if (safeOutputs.handlerConfig.upload_asset) {
    jobs.upload_assets = uploadAssetsJob(ctx, safeOutputs);
    conclusionExtra.push("upload_assets");
  }
  if (uploadsSarif(safeOutputs)) {
    const token = ownCheckout?.["github-token"];
    jobs[UPLOAD_SARIF_JOB] = uploadSarifJob(
      ctx,
      safeOutputs,
      await pinText("github/codeql-action/upload-sarif", "v4.35.5"),
      typeof token === "string" && token !== "" ? token : undefined,
      artifactName(ctx, "", "activation"),
    );
    conclusionExtra.push(UPLOAD_SARIF_JOB);
    safeOutputJobs.push(UPLOAD_SARIF_JOB);
  }
  const declared = data.permissions && typeof data.permissions === "object"
    ? Object.fromEntries(Object.entries(data.permissions).map(([k, v]) => [k, String(v)]))
    : {};
  for (
    const [name, job] of Object.entries(
      callWorkflowJobs(safeOutputs, planning.workflowTargets ?? [], declared),
    )
  ) {
    jobs[name] = job;
    conclusionExtra.push(name);
    safeOutputJobs.push(name);
  }
  if (isObject(data.experiments)) {
    jobs.push_experiments_state = pushExperimentsStateJob(ctx);
    conclusionExtra.push("push_experiments_state");
  }
  const repoMemory = merged.tools["repo-memory"];
  if (
    repoMemory !== undefined && repoMemory !== false &&
    !(Array.isArray(repoMemory) && repoMemory.length === 0)
  ) {
    jobs.push_repo_memory = pushRepoMemoryJob(ctx, safeOutputs.threatDetection, repoMemory);
    conclusionExtra.push("push_repo_memory");
  }
  conclusionExtra.push(...customJobNames(rawJobs));
  jobs.conclusion = conclusionJob(ctx, safeOutputs, {
    timeoutMinutes: timeout,
    extraNeeds: conclusionExtra,
    safeOutputJobs,
    jobDiscriminator: typeof data.concurrency === "string"
      ? undefined
      : data.concurrency?.["job-discriminator"],
    repoMemoryIds: jobs.push_repo_memory ? repoMemories(repoMemory).map((m) => m.id) : [],
    apiHosts: network.engineApiHosts,
    hasSecrets: engine.secrets.length > 0,
  });
  // `jobs.<built-in>.setup-steps` / `pre-steps` (e.g. an import's conclusion pre-step), typed like gh-aw's.
  await applyBuiltinJobSteps(jobs, rawJobs, (steps) => pinSteps(asTypedSteps(steps)));
}

/** The workflow's own `jobs:` and the check of `safe-outputs.needs`. */
export async function planCustomJobs(
  planning: Planning,
  g: Gates,
  beforeActivation: string[],
): Promise<void> {
  const { source, file, safeOutputs, diagnostics, jobs, pinSteps } = planning;
  const { rawJobs } = g;
  // Custom jobs.
  for (const jobName of customJobNames(rawJobs)) {
    const raw = rawJobs[jobName];
    const job = customJob({
      raw,
      // gh-aw moves the expressions of their `run:` scripts into `env:` before writing them.
      steps: await pinSteps(Array.isArray(raw.steps) ? raw.steps.map(sanitizeRunStep) : raw.steps),
      beforeActivation: beforeActivation.includes(jobName),
      toY,
      target: planning.ctx.target,
    });
    if (typeof raw["runs-on"] === "string" && /^macos/i.test(raw["runs-on"])) {
      const [line, column] = file.locate(["jobs", jobName, "runs-on"]);
      diagnostics.push(
        diagnostic(
          "macos-runner",
          { file: source, line, column },
          `job ${jobName} uses macOS runner "${raw["runs-on"]}", which is not supported`,
        ),
      );
    }
    jobs[jobName] = job;
  }
  // Threat detection judges the output before any gate the safe-output job waits for (an approval).
  gateAfterDetection(jobs, safeOutputs.needs);
  // Validate safe-outputs.needs names.
  for (const n of safeOutputs.needs) {
    if (!jobs[n]) {
      const [line, column] = file.locate(["safe-outputs", "needs"]);
      diagnostics.push(
        diagnostic(
          "unknown-job",
          { file: source, line, column },
          `safe-outputs.needs names unknown job "${n}"`,
          `define it under \`jobs:\` (known: ${Object.keys(planning.rawJobs).join(", ") || "none"})`,
        ),
      );
    }
  }
}
