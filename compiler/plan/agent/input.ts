/** The inputs of the agent job, shared by its step builders (safe outputs, MCP gateway, engine). */
import type { JobCtx } from "../steps.ts";
import type { StepPlan } from "../types.ts";
import type { YValue } from "../../yaml/writer.ts";
import type { MergedConfig } from "../../source/merge.ts";
import type { Frontmatter } from "../../source/schema.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import type { EngineConfig } from "../engines/facts.ts";
import type { WorkflowTarget } from "../safe_outputs/dynamic_tools.ts";

/** Inputs of the agent job. */
export interface AgentInput {
  ctx: JobCtx;
  frontmatterHash: string;
  runsOn: YValue;
  permissions: Record<string, string> | string;
  engineDisplay: string;
  engineEnv: Record<string, string>;
  secrets: string[];
  usesCopilotRequests: boolean;
  model?: string;
  maxTurns?: number | string;
  maxContinuations?: number | string;
  timeoutMinutes: number | string;
  allowedDomains: string[];
  blockedDomains: string[];
  handlerConfig: Record<string, unknown>;
  /** `safe-outputs.allowed-github-references` (sanitizer setting applied when ingesting agent output). */
  allowedReferences?: string[];
  github: { toolsets: string; readOnly: boolean; minIntegrity?: string } | undefined;
  mcpServers: Record<string, Record<string, unknown>>;
  /** Pinned actions of the agentic-workflows MCP server's dev build (setup-go, buildx, build-push). */
  mcpRefs?: { setupGo: string; buildx: string; buildPush: string };
  /** The pinned `setup-cli` action of the target release (release mode installs `gh aw` with it). */
  setupCliRef?: string;
  /** `mcp-scripts:` tools merged from the workflow and its imports (the workflow wins). */
  mcpScripts?: Record<string, Record<string, unknown>>;
  containers: string[];
  /** Digests of the firewall's images by role, from `actions-lock.json` `containers` (targets that list them). */
  firewallDigests?: Readonly<Record<string, string>>;
  customSteps: StepPlan[];
  /** The workflow's `jobs:` merged with its imports' (jobs/builtin_jobs.ts). */
  workflowJobs: Record<string, Record<string, unknown>>;
  /** The workflow's own `pre-agent-steps`, pinned; they run after the restore steps, before the MCP setup. */
  preAgentSteps?: StepPlan[];
  /** The workflow's `post-steps`, pinned; they run after the run's logs are summarised, before the uploads. */
  postSteps?: StepPlan[];
  /** `pre-steps` (imports' first), pinned; they run right after the job's setup, before the checkout. */
  preSteps?: StepPlan[];
  checkouts: Record<string, YValue>[];
  cacheSteps: StepPlan[];
  env: Record<string, YValue>;
  concurrency?: Record<string, YValue>;
  environment?: YValue;
  /** The imported custom agent file (`.github/agents/…`): its repository path and the import as written. */
  agentImport?: { file: string; spec: string };
  /** Frontmatter `services:` (service containers beside the agent job). */
  services?: YValue;
  /** The workflow's own frontmatter (after validation), for settings the agent job reads directly. */
  frontmatter: Frontmatter;
  /** Frontmatter merged with its imports (tools, MCP servers, network, safe outputs, steps). */
  merged: MergedConfig;
  /** The planned safe outputs (types, handler config, tools offered to the agent). */
  safeOutputs: SafeOutputsPlan;
  /** The resolved engine (id, model, secrets, environment). */
  engine: EngineConfig;
  /** Setup steps of the language runtimes the workflow needs (before anything else runs). */
  runtimeSteps?: StepPlan[];
  /** The runtime steps go among the custom steps, after their own checkout, instead of before them. */
  runtimeAfterCheckout?: boolean;
  /** Pinned `actions/cache` and `actions/cache/restore`, when `tools.cache-memory` is configured. */
  cacheRefs?: { cache: string; cacheRestore: string };
  /** Workflows `dispatch-workflow` / `call-workflow` may start, with their inputs (agent tools). */
  workflowTargets?: WorkflowTarget[];
  /** Pinned `actions/setup-node` reference (engines installed with npm set up Node.js first). */
  setupNodeRef?: string;
}
