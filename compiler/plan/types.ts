/** Stage 4 — the typed IR the planner produces and the emitter renders: jobs and steps, no YAML text. */
import type { YValue } from "../yaml/writer.ts";
import type { EngineConfig } from "./engines.ts";
import type { TriggerInfo } from "./triggers.ts";
import type { SafeOutputsPlan } from "./safe_outputs/plan.ts";

/** One step. `uses` holds a pinned reference (`repo@sha # vX`). */
export interface StepPlan {
  name?: string;
  id?: string;
  if?: YValue;
  "continue-on-error"?: boolean | string;
  "timeout-minutes"?: number | string;
  uses?: YValue;
  env?: Record<string, YValue>;
  with?: Record<string, YValue>;
  run?: YValue;
  shell?: string;
  [key: string]: YValue | undefined;
}

/** One job. Keys render in gh-aw's order. */
export interface JobPlan {
  needs?: string[] | string;
  if?: YValue;
  "runs-on": YValue;
  environment?: YValue;
  permissions?: Record<string, string> | string;
  concurrency?: Record<string, YValue>;
  "timeout-minutes"?: number | string;
  "continue-on-error"?: boolean | string;
  env?: Record<string, YValue>;
  outputs?: Record<string, YValue>;
  steps: StepPlan[];
  [key: string]: unknown;
}

/** Everything the planner decided for one workflow. */
export interface WorkflowPlan {
  id: string;
  name: string;
  source: string;
  lockPath: string;
  triggers: TriggerInfo;
  engine: EngineConfig;
  concurrency: Record<string, YValue>;
  env: Record<string, YValue>;
  runName: string;
  jobs: Record<string, JobPlan>;
  safeOutputs: SafeOutputsPlan;
  allowedDomains: string[];
  /** Resolved `uses:` references (repo@version → pinned text) for the header. */
  actionComments: string[];
}
