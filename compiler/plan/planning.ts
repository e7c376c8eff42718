/** The state the planner hands from step to step while it plans one workflow. */
import type { GhAwTarget } from "../targets/mod.ts";
import type { RawJobs } from "./jobs/custom.ts";
import type { Diagnostic, FileReader } from "../api.ts";
import type { computeAllowedDomains } from "./network.ts";
import { type JobCtx } from "./steps.ts";
import type { JobPlan, StepPlan } from "./types.ts";
import { type PinResolver } from "./pins.ts";
import { type ContainerPin } from "../source/container_pins.ts";
import type { ManifestMcpServer } from "./mcp/manifest_servers.ts";
import type { WorkflowSource } from "../source/workflow_source.ts";
import type { TriggerInfo } from "./triggers.ts";
import type { EngineConfig } from "./engines/facts.ts";
import type { SafeOutputsPlan } from "./safe_outputs/plan.ts";
import type { preActivationExtras } from "./jobs/custom.ts";
import type { RateLimit, SkipIfCheckFailing } from "./jobs/pre_activation_checks.ts";
import type { MultilineStyle } from "./user_steps.ts";
import type { WorkflowTarget } from "./safe_outputs/dynamic_tools.ts";

/** Options of planning one workflow (the run's settings). */
export interface PlanOptions {
  actionMode: "dev" | "release";
  ghes: boolean;
  seedPrefix: string;
  pins: PinResolver;
  now: Date;
  read: FileReader;
  failureIssueExpires?: number;
  /** `aw.json` `container_pins`: images replaced by `image@digest` wherever the lock pulls them. */
  containerPins?: Readonly<Record<string, ContainerPin>>;
  /** The gh-aw release compiled for (default v0.76.1): the planners ask it what differs per release. */
  target?: GhAwTarget;
}

/** What the planning of one workflow has decided so far, handed from step to step. */
export interface Planning {
  o: PlanOptions;
  diagnostics: Diagnostic[];
  source: string;
  id: string;
  lockPath: string;
  file: WorkflowSource["file"];
  data: WorkflowSource["frontmatter"];
  imports: WorkflowSource["imports"];
  merged: WorkflowSource["merged"];
  macroBodies: WorkflowSource["macroBodies"];
  name: string;
  triggers: TriggerInfo;
  engine: EngineConfig;
  safeOutputs: SafeOutputsPlan;
  frontmatterHash: string;
  pinText: (repo: string, version: string) => Promise<string>;
  ctx: JobCtx;
  network: ReturnType<typeof computeAllowedDomains>;
  timeout: number | string;
  /** Pins a list of user steps; `style` picks how their multi-line strings are written (user_steps.ts). */
  pinSteps: (steps: unknown, style?: MultilineStyle) => Promise<StepPlan[]>;
  jobs: Record<string, JobPlan>;
  /** The workflow's `jobs:` merged with its imports' (jobs/builtin_jobs.ts). */
  rawJobs: RawJobs;
  /** The workflows `dispatch-workflow` / `call-workflow` may start, as read when the agent was planned. */
  workflowTargets?: WorkflowTarget[];
  /** The manifest's `mcp_servers` (targets that list them), set by the agent planner. */
  manifestMcpServers?: ManifestMcpServer[];
}

/** The `on:` gates decided before the jobs: role check, stop time, skip conditions, pre-activation steps. */
export interface Gates {
  rawOn: Record<string, unknown>;
  roles: string[] | undefined;
  /** Whether a role check gates the workflow (an event or `on:` key other than the safe ones). */
  needsRoleCheck: boolean;
  /** `user-rate-limit:` (or `rate-limit:`), resolved. */
  rateLimit: RateLimit | undefined;
  /** `on.skip-if-check-failing:`, resolved. */
  skipIfCheckFailing: SkipIfCheckFailing | undefined;
  stopTime: string | undefined;
  commands: string[] | undefined;
  prLabelNames: string[] | undefined;
  rawJobs: Record<string, Record<string, unknown>>;
  hasPre: boolean;
  /** `on.skip-if-match`: skip when a search finds more than `max` items. */
  skipIfMatch: { query: string; max?: number } | undefined;
  /** `on.skip-if-no-match`: skip when a search finds fewer than `min` items. */
  skipIfNoMatch: { query: string; min?: number } | undefined;
  /** `on.steps` and the custom pre-activation job's steps, pinned. */
  onSteps: StepPlan[];
  /** Steps and outputs a custom `pre-activation` job adds. */
  preExtras: ReturnType<typeof preActivationExtras>;
}
