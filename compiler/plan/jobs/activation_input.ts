/** What the `activation` job is built from (planned in plan_activation.ts). */
import type { JobCtx } from "../steps.ts";

/** Inputs of the activation job. */
export interface ActivationInput {
  ctx: JobCtx;
  frontmatterHash: string;
  hasPreActivation: boolean;
  ifCondition?: string;
  /** Custom jobs that run before activation (its extra `needs`). */
  beforeJobs?: string[];
  engineDisplay: string;
  engineModel: string;
  /** Whether the engine is marked experimental in aw_info. */
  experimental?: boolean;
  /** Whether safe outputs run staged (previews only). */
  staged?: boolean;
  secrets: string[];
  validateName: string;
  docs: string;
  allowedDomainsInfo: string[];
  safeOutputTools: string[];
  autoCreateIssue: boolean;
  /** Prompt imports in order: a path is runtime-imported, `{ inline }` text (imports with inputs) is embedded. */
  runtimeImports: (string | { inline: string })[];
  /** The prompt's own expressions (env name → expression) in gh-aw's order, experiment values included. */
  bodyExprs: Map<string, string>;
  permissions: Record<string, string>;
  emoji?: string;
  strict: boolean;
  inlinedBody?: string;
  /** The inlined prompt piece by piece (prompts built from JSON list each). */
  inlinedPieces?: string[];
  /** Tool prompt fragments after markdown.md (playwright, agentic workflows, memories). */
  promptFragments: string[];
  /** Safe-output prompt fragments inside <safe-output-tools>. */
  safeOutputFragments: string[];
  /** A/B experiments: names and the Go-style JSON spec. */
  experiments?: { names: string[]; spec: string };
  /** Whether the fork guard applies (pull_request trigger). */
  forkGuard: boolean;
  /** Whether the `workflow_run` repository/fork guard applies (workflow_run trigger). */
  workflowRunGuard?: boolean;
  /** The centralized slash-command router dispatches this workflow (reaction/comment guards). */
  routerDispatch: boolean;
  /** `pull_request.names` label filter (applied through the job condition). */
  labelNames?: string[];
  /** Events that can trigger the run (rendered `on:` keys and slash-command events); scope the write permissions. */
  activationEvents?: string[];
  /** A label command whose trigger label is removed (names and the label events). */
  labelRemoval?: { names: string[]; events: string[] };
  /** `lock-for-agent` on an issue trigger: the issue is locked while the agent works on it. */
  lockForAgent?: boolean;
  /** `on.github-token`: used by the reaction, lock-file check, status comment and label removal. */
  githubToken?: string;
  /**
   * Skip the `.github` checkout: a callable workflow with its imports inlined reads nothing from it, and a
   * caller in another organisation could not check the callee's repository out (spec C, compiler errors).
   */
  noConfigCheckout?: boolean;
  /** Reaction added to the triggering item, if any. */
  reaction?: string;
  /** Whether a status comment with the run link is posted (and updated by the conclusion). */
  statusComment: boolean;
  /** Whether the triggering text is sanitized into `text`/`title`/`body` outputs. */
  sanitize: boolean;
  /** `safe-outputs.messages` as Go-style JSON. */
  messages?: string;
  /** Agent allowlist (for the text sanitizer). */
  allowedDomains: string[];
  /** Command names of a slash-command workflow. */
  commands?: string[];
  /** The single `tools.repo-memory` configuration, when enabled. */
  repoMemory?: Record<string, unknown>;
  /** Whether PR-comment events can trigger the workflow (adds the PR context prompt). */
  prContext: boolean;
  /** Adds the push-to-PR-branch preference after the PR context (push-to-pull-request-branch enabled). */
  prContextPushGuidance: boolean;
  /** Whether the GitHub tool is on (`tools.github` not `false`): the prompt's GitHub context and tool guidance. */
  githubTool: boolean;
  /** Whether the prompt's GitHub guidance is the `gh` CLI one (else the MCP one). */
  cliProxy: boolean;
  /** `tools.cache-memory` as configured (object, list or flag). */
  cacheMemory?: unknown;
  /** `tools.repo-memory` when it is a list of named memories (multi-memory prompt). */
  repoMemoryList?: Record<string, unknown>[];
  /** Configured `checkout:` entries (imports merged), described in the prompt's GitHub context. */
  checkouts?: Record<string, unknown>[];
  /** MCP servers mounted as CLIs (sorted), listed in the prompt. */
  mcpCliServers: string[];
}
