/** Stage 4 — the typed IR the planner produces and the emitter renders: jobs and steps, no YAML text. */
import type { EmitStyle } from "../targets/mod.ts";
import type { Comment, DeepMapping, YValue } from "../yaml/writer.ts";

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
  /** A comment written just above `if:`. */
  ifNote?: Comment;
  if?: YValue;
  "runs-on": YValue;
  environment?: YValue;
  /** A `DeepMapping` only where gh-aw writes the block deeper than usual (the agent's, see jobs/agent.ts). */
  permissions?: Record<string, string> | string | DeepMapping;
  concurrency?: Record<string, YValue>;
  "timeout-minutes"?: number | string;
  "continue-on-error"?: boolean | string;
  env?: Record<string, YValue>;
  outputs?: Record<string, YValue>;
  steps: StepPlan[];
  [key: string]: unknown;
}

/** What the lock header states, decided by the planner (the emitter renders it; nothing is read back). */
export interface HeaderFacts {
  frontmatterHash: string;
  bodyHash: string;
  /** Effective `stop-after` time (`YYYY-MM-DD HH:MM:SS`), when set. */
  stopTime?: string;
  /** Whether the workflow is strict (`strict: false` turns it off). */
  strict: boolean;
  engineId: string;
  model?: string;
  /** Container images the agent job pulls (`image` or `image@digest`). */
  containers: string[];
  /** The manifest's `mcp_servers` (targets that list them). */
  mcpServers?: { name: string; tools: string[] }[];
  /** Whether the manifest notes that the workflow runs on pull requests (targets that note it). */
  hasPullRequest?: boolean;
  description?: string;
  /** Frontmatter `source:` (where the workflow was installed from). */
  sourceRef?: string;
  /** Imports in the header's order (dependencies first). */
  imports: string[];
  inlinedImports: boolean;
  /** Keys of the main workflow's `env:`. */
  envKeys: string[];
  /** The release named as `compiler_version` in the metadata header (targets that stamp it). */
  compilerVersion?: string;
  /** The engine CLI release the lock installs (`engine_versions`), stamped with `compilerVersion`. */
  engineVersions?: Record<string, string>;
}

/** Everything the planner decided for one workflow: the lock's sections, its jobs and its header facts. */
export interface WorkflowPlan {
  /** How the target release writes the lock text (default: v0.76.1's). */
  emitStyle?: EmitStyle;
  id: string;
  name: string;
  source: string;
  lockPath: string;
  on: Record<string, YValue>;
  concurrency: Record<string, YValue>;
  runName: string;
  env: Record<string, YValue>;
  jobs: Record<string, JobPlan>;
  header: HeaderFacts;
  /** Frontmatter `cache:` is set: gh-aw notes above `jobs:` that its steps went into the agent job. */
  cacheNote?: boolean;
}
