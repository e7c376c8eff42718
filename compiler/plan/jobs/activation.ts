/** The `pre_activation` and `activation` jobs (role checks, stale-lock check, prompt assembly). */
import { createHash } from "node:crypto";
import type { JobPlan, StepPlan } from "../types.ts";
import {
  type JobCtx,
  NO_FIREWALL_INFO_ENGINES,
  otlpMaskSteps,
  scriptStep,
  setupSteps,
  shStep,
  TRACE_OUTPUTS,
} from "../steps.ts";
import { Comment, dq, folded, lit, plain, sq, type YValue } from "../../yaml/writer.ts";

/** The comment gh-aw puts before `run:` of steps that execute checked-out content. */
const POUTINE = new Comment("poutine:ignore untrusted_checkout_exec");
import { heredocDelimiter } from "../../source/hash.ts";
import { breakLongExpression, MAX_EXPRESSION_LINE } from "../../yaml/expr_break.ts";
import { costTableJson, hasCosts } from "../../source/model_catalog.ts";
import { repoMemoryBranch } from "../agent/repo_memory.ts";

const CTX = "fromJSON(github.event.inputs.aw_context || github.event.client_payload.aw_context || '{}')";

/** Engines whose run info reports no tool allowlist support (gh-aw v0.76). */
const NO_TOOLS_ALLOWLIST = ["crush", "opencode"];
const NO_FIREWALL_INFO = NO_FIREWALL_INFO_ENGINES;

/**
 * A `workflow_run` from another repository or a fork never runs the agent (`workflow_run` runs with the base
 * repository's secrets whatever triggered the run; the lock's zizmor note relies on this guard).
 */
export const WORKFLOW_RUN_GUARD = "github.event_name != 'workflow_run' || " +
  "github.event.workflow_run.repository.id == github.repository_id && " +
  "(!(github.event.workflow_run.repository.fork))";

/** Pull requests from forks never run the agent. */
export const FORK_GUARD =
  "github.event_name != 'pull_request' || github.event.pull_request.head.repo.id == github.repository_id";

const AWC = "fromJSON(github.event.inputs.aw_context || '{}').event_type";
/** Events (direct, or dispatched with aw_context) that carry an issue, PR or discussion to react on. */
const DIRECT_EVENT_GUARD = "github.event_name == 'issues' || github.event_name == 'issue_comment' || " +
  "github.event_name == 'pull_request_review_comment' || github.event_name == 'discussion' || " +
  "github.event_name == 'discussion_comment' || github.event_name == 'pull_request' && " +
  "github.event.pull_request.head.repo.id == github.repository_id";
/** With a centralized command router, dispatched runs carrying an item (aw_context) count too. */
const EVENT_GUARD = DIRECT_EVENT_GUARD + " || github.event_name == 'workflow_dispatch' && (" +
  [
    "issues",
    "issue_comment",
    "pull_request_review_comment",
    "pull_request",
    "discussion",
    "discussion_comment",
  ]
    .map((e) => `${AWC} == '${e}'`).join(" || ") +
  ")";

/** Built-in context expressions offered in the `<github-context>` block. */
const CONTEXT_EXPRS: [string, string, string][] = [
  [
    "discussion",
    `github.event.discussion.number || (${CTX}.item_type == 'discussion' && ${CTX}.item_number)`,
    "",
  ],
  [
    "pull_request",
    `github.event.pull_request.number || (${CTX}.item_type == 'pull_request' && ${CTX}.item_number)`,
    "",
  ],
  ["issue", `github.event.issue.number || (${CTX}.item_type == 'issue' && ${CTX}.item_number)`, ""],
  ["comment", `github.event.comment.id || ${CTX}.comment_id`, ""],
];

/** The folder an engine reads agents and skills from. */
function engineDir(engine: string): string {
  return ({ claude: ".claude", codex: ".codex", gemini: ".gemini" } as Record<string, string>)[engine] ??
    ".github";
}

/** Env-var name for an expression: `GH_AW_<CHAIN>` for simple property chains, else a hashed name. */
export function exprEnvName(expr: string): string {
  const e = expr.trim();
  if (/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(e)) {
    return "GH_AW_" + e.replace(/\./g, "_").toUpperCase();
  }
  return "GH_AW_EXPR_" + createHash("sha256").update(e).digest("hex").slice(0, 8).toUpperCase();
}

/** Collects `${{ … }}` expressions of the body (and imported bodies) → env map. */
export function bodyExpressions(bodies: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const body of bodies) {
    // gh-aw lists each file's expressions sorted by their `${{ … }}` text (byte order), first file first.
    const found = [...body.matchAll(/\$\{\{\s*([^}]+?)\s*\}\}/g)]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const m of found) {
      if (/^(experiments|secrets|vars)\./.test(m[1])) continue;
      const name = exprEnvName(m[1]);
      if (!out.has(name)) out.set(name, m[1]);
    }
  }
  return out;
}

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
  bodyExprs: Map<string, string>;
  permissions: Record<string, string>;
  emoji?: string;
  strict: boolean;
  inlinedBody?: string;
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
  /** A centralized slash/label command router dispatches this workflow (reaction/comment guards). */
  routerDispatch: boolean;
  /** `pull_request.names` label filter (applied through the job condition). */
  labelNames?: string[];
  /** Events that can trigger the run (rendered `on:` keys and slash-command events); scope the write permissions. */
  activationEvents?: string[];
  /** A label command whose trigger label is removed (names and the label events). */
  labelRemoval?: { names: string[]; events: string[] };
  /** `on.github-token`: used by the reaction, lock-file check, status comment and label removal. */
  githubToken?: string;
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
  /** Whether the GitHub tool runs through the CLI proxy. */
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

/** The `activation` job: setup, run info, preflight checks, the prompt and its artifact. */
export function activationJob(a: ActivationInput): JobPlan {
  const promptExprs = promptExpressions(a);
  const steps: StepPlan[] = [
    ...runInfoSteps(a),
    ...preflightSteps(a),
    ...triggerSteps(a),
    createPromptStep(a, promptExprs),
    interpolateStep(a),
    substituteStep(a, promptExprs),
    ...closingSteps(a),
  ];
  const job: JobPlan = { "runs-on": "ubuntu-slim", steps };
  const needs = [...(a.hasPreActivation ? ["pre_activation"] : []), ...(a.beforeJobs ?? [])].sort();
  if (needs.length > 0) job.needs = needs.length === 1 ? needs[0] : needs;
  const userCond = eventCondition(a.ifCondition, a.forkGuard, a.labelNames);
  const base = a.hasPreActivation
    ? userCond
      ? `needs.pre_activation.outputs.activated == 'true' && (${userCond})`
      : "needs.pre_activation.outputs.activated == 'true'"
    : userCond;
  const cond = a.workflowRunGuard ? base ? `(${base}) && (${WORKFLOW_RUN_GUARD})` : WORKFLOW_RUN_GUARD : base;
  if (cond) job.if = jobIf(cond);
  job.permissions = { ...a.permissions, ...activationWrites(a) };
  job.permissions = Object.fromEntries(
    Object.keys(job.permissions).sort().map((k) => [k, (job.permissions as Record<string, string>)[k]]),
  );
  job.outputs = activationOutputs(a);
  return job;
}

/** Setup, OTLP masking and "Generate agentic run info" (engine, model, firewall, costs). */
function runInfoSteps(a: ActivationInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [
    ...setupSteps(ctx, a.hasPreActivation ? "pre_activation" : false),
    ...otlpMaskSteps(ctx),
  ];
  const info: Record<string, YValue> = {
    GH_AW_INFO_ENGINE_ID: dq(ctx.engineId),
    GH_AW_INFO_ENGINE_NAME: dq(a.engineDisplay),
    GH_AW_INFO_MODEL: a.engineModel.startsWith("${{") ? plain(a.engineModel) : dq(a.engineModel),
    GH_AW_INFO_VERSION: dq(ctx.engineVersion),
    GH_AW_INFO_AGENT_VERSION: dq(ctx.engineVersion),
    GH_AW_INFO_WORKFLOW_NAME: dq(ctx.name),
    GH_AW_INFO_EXPERIMENTAL: dq(String(a.experimental === true)),
    GH_AW_INFO_SUPPORTS_TOOLS_ALLOWLIST: dq(String(!NO_TOOLS_ALLOWLIST.includes(ctx.engineId))),
    GH_AW_INFO_STAGED: dq(String(a.staged === true)),
    GH_AW_INFO_ALLOWED_DOMAINS: sq(JSON.stringify(a.allowedDomainsInfo)),
    GH_AW_INFO_FIREWALL_ENABLED: dq(String(!NO_FIREWALL_INFO.includes(ctx.engineId))),
    GH_AW_INFO_AWF_VERSION: dq(NO_FIREWALL_INFO.includes(ctx.engineId) ? "" : "v0.25.58"),
    GH_AW_INFO_AWMG_VERSION: dq(""),
    GH_AW_INFO_FIREWALL_TYPE: dq("squid"),
  };
  if (ctx.source) {
    info.GH_AW_INFO_FRONTMATTER_SOURCE = dq(ctx.source);
    info.GH_AW_INFO_BODY_MODIFIED = dq("false");
  }
  if (a.emoji) info.GH_AW_INFO_FRONTMATTER_EMOJI = dq(a.emoji);
  if (hasCosts(ctx.models)) info.GH_AW_INFO_MODEL_COSTS = sq(costTableJson(ctx.models));
  info.GH_AW_COMPILED_STRICT = dq(String(a.strict));
  steps.push(
    scriptStep(ctx, "Generate agentic run info", "generate_aw_info", {
      id: "generate_aw_info",
      env: info,
      call: "await main(core, context);",
    }),
  );
  // env before uses for this step, as gh-aw orders it
  const gen = steps[steps.length - 1];
  steps[steps.length - 1] = { name: gen.name, id: gen.id, env: gen.env, uses: gen.uses, with: gen.with };
  return steps;
}

/** Reaction, secret validation, `.github` checkout and the stale-lock check. */
function preflightSteps(a: ActivationInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  if (a.reaction) {
    steps.push(scriptStep(ctx, `Add ${a.reaction} reaction for immediate feedback`, "add_reaction", {
      id: "react",
      if: plain(a.routerDispatch ? EVENT_GUARD : DIRECT_EVENT_GUARD),
      env: { GH_AW_REACTION: dq(a.reaction) },
      token: a.githubToken ?? "${{ secrets.GITHUB_TOKEN }}",
    }));
  }
  if (a.secrets.length > 0) {
    const env: Record<string, YValue> = {};
    for (const s of a.secrets) env[s] = plain(`\${{ secrets.${s} }}`);
    const display = /\s/.test(a.validateName) ? `'${a.validateName}'` : a.validateName;
    steps.push({
      name: `Validate ${a.secrets.join(" or ")} secret`,
      id: "validate-secret",
      run: plain(
        `bash "\${RUNNER_TEMP}/gh-aw/actions/validate_multi_secret.sh" ${
          a.secrets.join(" ")
        } ${display} ${a.docs}`,
      ),
      env,
    });
  }
  steps.push({
    name: "Checkout .github and .agents folders",
    uses: plain(ctx.refs.checkout),
    with: {
      "persist-credentials": false,
      ...(a.githubToken ? { token: plain(a.githubToken) } : {}),
      "sparse-checkout": lit(
        ".github\n.agents\nactions/setup\n.antigravity\n.claude\n.codex\n.crush\n.gemini\n.opencode\n.pi\n",
      ),
      "sparse-checkout-cone-mode": true,
      "fetch-depth": 1,
    },
  });
  steps.push({
    name: "Save agent config folders for base branch restoration",
    env: {
      GH_AW_AGENT_FOLDERS: dq(".agents .antigravity .claude .codex .crush .gemini .github .opencode .pi"),
      GH_AW_AGENT_FILES: dq(".crush.json AGENTS.md ANTIGRAVITY.md CLAUDE.md GEMINI.md PI.md opencode.jsonc"),
    },
    "#": POUTINE,
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/save_base_github_folders.sh"'),
  });
  steps.push(scriptStep(ctx, "Check workflow lock file", "check_workflow_timestamp_api", {
    id: "check-lock-file",
    env: {
      GH_AW_WORKFLOW_FILE: dq(ctx.lockFile),
      GH_AW_CONTEXT_WORKFLOW_REF: dq("${{ github.workflow_ref }}"),
    },
    token: a.githubToken,
  }));
  return steps;
}

/** Steps the triggers and features ask for: experiments, sanitized text, status comment, label removal. */
function triggerSteps(a: ActivationInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  if (a.experiments) {
    const sanitized = ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase();
    steps.push(scriptStep(ctx, "Restore experiment state from git", "load_experiment_state_from_repo", {
      id: "restore-experiment-state",
      env: {
        GH_AW_EXPERIMENT_STATE_FILE: "/tmp/gh-aw/experiments/state.json",
        GH_AW_EXPERIMENT_STATE_DIR: "/tmp/gh-aw/experiments",
        GH_AW_EXPERIMENT_BRANCH: `experiments/${sanitized}`,
      },
    }));
    steps.push(scriptStep(ctx, "Pick experiment variants", "pick_experiment", {
      id: "pick-experiment",
      env: {
        GH_AW_EXPERIMENT_SPEC: sq(a.experiments.spec),
        GH_AW_EXPERIMENT_STATE_FILE: "/tmp/gh-aw/experiments/state.json",
        GH_AW_EXPERIMENT_STATE_DIR: "/tmp/gh-aw/experiments",
      },
    }));
    steps.push({
      name: "Upload experiment artifact",
      if: plain("always()"),
      uses: plain(ctx.refs.upload),
      with: {
        name: `${sanitized}-experiment`,
        path: "/tmp/gh-aw/experiments",
        "if-no-files-found": "ignore",
        "retention-days": 30,
      },
    });
  }
  if (a.sanitize) {
    steps.push(scriptStep(ctx, "Compute current body text", "compute_text", {
      id: "sanitized",
      env: { GH_AW_ALLOWED_DOMAINS: dq(a.allowedDomains.join(",")) },
    }));
  }
  if (a.statusComment) {
    const env: Record<string, YValue> = { GH_AW_WORKFLOW_NAME: dq(ctx.name) };
    if (a.messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(a.messages);
    steps.push(scriptStep(ctx, "Add comment with workflow run link", "add_workflow_run_comment", {
      id: "add-comment",
      if: plain(a.routerDispatch ? EVENT_GUARD : DIRECT_EVENT_GUARD),
      env,
      token: a.githubToken,
    }));
  }
  if (a.labelRemoval) {
    steps.push(scriptStep(ctx, "Remove trigger label", "remove_trigger_label", {
      id: "remove_trigger_label",
      env: { GH_AW_LABEL_NAMES: dq(JSON.stringify(a.labelRemoval.names)) },
      token: a.githubToken,
    }));
  }
  return steps;
}

/** The expressions the prompt substitutes (env name → expression). */
function promptExpressions(a: ActivationInput): Map<string, string> {
  const exprEnv = new Map<string, string>(a.bodyExprs);
  for (const n of a.experiments?.names ?? []) {
    exprEnv.set(
      `GH_AW_EXPERIMENTS_${n.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`,
      `steps.pick-experiment.outputs.${n}`,
    );
  }
  for (const [, e] of CONTEXT_EXPRS) exprEnv.set(exprEnvName(e), e);
  for (const e of ["github.actor", "github.repository", "github.run_id", "github.workspace"]) {
    exprEnv.set(exprEnvName(e), e);
  }
  if (a.repoMemory && a.repoMemory.wiki !== true) exprEnv.set("GH_AW_WIKI_NOTE", "''");
  const promptExprs = new Map(exprEnv);
  if (a.prContext) promptExprs.set("GH_AW_IS_PR_COMMENT", "github.event.issue.pull_request && 'true' || ''");
  return promptExprs;
}

/** "Create prompt with built-in context": the system prompt fragments, the context block and the body. */
function createPromptStep(a: ActivationInput, promptExprs: Map<string, string>): StepPlan {
  const delim = heredocDelimiter("PROMPT", a.frontmatterHash);
  const promptEnv: Record<string, YValue> = {
    GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
    GH_AW_SAFE_OUTPUTS: plain("${{ runner.temp }}/gh-aw/safeoutputs/outputs.jsonl"),
  };
  for (const k of [...promptExprs.keys()].sort()) promptEnv[k] = plain(`\${{ ${promptExprs.get(k)} }}`);
  const lines: string[] = ['bash "${RUNNER_TEMP}/gh-aw/actions/create_prompt_first.sh"', "{"];
  // Parts: literal text (adjacent texts share one quoted heredoc) or a runtime prompt fragment file.
  const parts: ({ text: string } | { file: string } | { raw: string[] })[] = [];
  const block = (text: string) => parts.push({ text });
  const cat = (f: string) => parts.push({ file: f });
  block("<system>");
  cat("xpia.md");
  cat("temp_folder_prompt.md");
  cat("markdown.md");
  for (const f of a.promptFragments) cat(f);
  cat("safe_outputs_prompt.md");
  block(`<safe-output-tools>\nTools: ${a.safeOutputTools.join(", ")}`);
  if (a.safeOutputTools.some((t) => t.startsWith("upload_asset"))) {
    block(
      "\nupload_asset: provide a file path; returns a URL; assets are published after the workflow completes (safeoutputs).",
    );
  }
  if (a.autoCreateIssue) cat("safe_outputs_auto_create_issue.md");
  for (const f of a.safeOutputFragments) cat(f);
  block("</safe-output-tools>");
  cat("mcp_cli_tools_prompt.md");
  block(githubContextBlock(a));
  cat(
    a.cliProxy ? "cli_proxy_with_safeoutputs_prompt.md" : "github_mcp_tools_with_safeoutputs_prompt.md",
  );
  if (a.prContext) {
    parts.push({
      raw: [
        'if [ "$GITHUB_EVENT_NAME" = "issue_comment" ] && [ -n "$GH_AW_IS_PR_COMMENT" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review_comment" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review" ]; then',
        '  cat "${RUNNER_TEMP}/gh-aw/prompts/pr_context_prompt.md"',
        "fi",
      ],
    });
    if (a.prContextPushGuidance) {
      parts.push({
        raw: [
          'if [ "$GITHUB_EVENT_NAME" = "issue_comment" ] && [ -n "$GH_AW_IS_PR_COMMENT" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review_comment" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review" ]; then',
          '  cat "${RUNNER_TEMP}/gh-aw/prompts/pr_context_push_to_pr_branch_guidance.md"',
          "fi",
        ],
      });
    }
  }
  if (a.inlinedBody !== undefined) block(`</system>\n${a.inlinedBody}`);
  else {
    block(
      [
        "</system>",
        ...a.runtimeImports.map((
          p,
        ) => (typeof p === "string" ? `{{#runtime-import ${p}}}` : `${p.inline}\n\n`)),
      ].join("\n"),
    );
  }
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if ("file" in p) {
      lines.push(`cat "\${RUNNER_TEMP}/gh-aw/prompts/${p.file}"`);
      continue;
    }
    if ("raw" in p) {
      lines.push(...p.raw);
      continue;
    }
    const texts = [p.text];
    while (i + 1 < parts.length && "text" in parts[i + 1]) texts.push((parts[++i] as { text: string }).text);
    lines.push(`cat << '${delim}'`, ...texts.join("\n").split("\n"), delim);
  }
  lines.push('} > "$GH_AW_PROMPT"');
  return {
    name: "Create prompt with built-in context",
    env: promptEnv,
    "#": POUTINE,
    run: lit(lines.join("\n") + "\n"),
  };
}

/** The `<github-context>` block of the prompt. */
function githubContextBlock(a: ActivationInput): string {
  const ctxLines = [
    "<github-context>",
    "The following GitHub context information is available for this workflow:",
    "{{#if github.actor}}",
    "- **actor**: __GH_AW_GITHUB_ACTOR__",
    "{{/if}}",
    "{{#if github.repository}}",
    "- **repository**: __GH_AW_GITHUB_REPOSITORY__",
    "{{/if}}",
    "{{#if github.workspace}}",
    "- **workspace**: __GH_AW_GITHUB_WORKSPACE__",
    "{{/if}}",
  ];
  for (const [kind, e] of [CONTEXT_EXPRS[2], CONTEXT_EXPRS[0], CONTEXT_EXPRS[1]]) {
    const cond = e.replace(new RegExp(CTX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g"), "github.aw.context");
    const label = kind === "pull_request" ? "pull-request" : kind;
    ctxLines.push(`{{#if ${cond}}}`, `- **${label}-number**: #__${exprEnvName(e)}__`, "{{/if}}");
  }
  ctxLines.push(
    `{{#if github.event.comment.id || github.aw.context.comment_id}}`,
    `- **comment-id**: __${exprEnvName(CONTEXT_EXPRS[3][1])}__`,
    "{{/if}}",
    "{{#if github.run_id}}",
    "- **workflow-run-id**: __GH_AW_GITHUB_RUN_ID__",
    "{{/if}}",
    ...checkoutLines(a.checkouts ?? []),
    "</github-context>",
    "",
  );
  return ctxLines.join("\n");
}

/** "Interpolate variables and render templates". */
function interpolateStep(a: ActivationInput): StepPlan {
  const { ctx } = a;
  return scriptStep(ctx, "Interpolate variables and render templates", "interpolate_prompt", {
    env: {
      GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
      GH_AW_ENGINE_ID: dq(ctx.engineId),
      ...Object.fromEntries(
        [...a.bodyExprs.keys()].map((k) => [k, plain(`\${{ ${a.bodyExprs.get(k)} }}`)]),
      ),
      ...Object.fromEntries(
        (a.experiments?.names ?? []).map((n) => [
          `GH_AW_EXPERIMENTS_${n.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`,
          plain(`\${{ steps.pick-experiment.outputs.${n} }}`),
        ]),
      ),
    },
  });
}

/** "Substitute placeholders": every `__GH_AW_…__` placeholder of the prompt and its value. */
function substituteStep(a: ActivationInput, promptExprs: Map<string, string>): StepPlan {
  const { ctx } = a;
  const subEnv: Record<string, YValue> = { GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt" };
  const cliList = a.mcpCliServers.map((n) => `- \`${n}\` — run \`${n} --help\` to see available tools`).join(
    "\n",
  );
  const subVars = new Map<string, YValue>();
  for (const k of promptExprs.keys()) subVars.set(k, plain(`\${{ ${promptExprs.get(k)} }}`));
  subVars.set("GH_AW_MCP_CLI_SERVERS_LIST", cliList.includes("\n") ? dq(cliList) : sq(cliList));
  if (a.hasPreActivation) {
    subVars.set(
      "GH_AW_NEEDS_PRE_ACTIVATION_OUTPUTS_ACTIVATED",
      plain("${{ needs.pre_activation.outputs.activated }}"),
    );
    if (a.commands) {
      subVars.set(
        "GH_AW_NEEDS_PRE_ACTIVATION_OUTPUTS_MATCHED_COMMAND",
        plain("${{ needs.pre_activation.outputs.matched_command }}"),
      );
    }
  }
  memoryPlaceholders(a, subVars);
  const subKeys = [...subVars.keys()].sort();
  for (const k of subKeys) subEnv[k] = subVars.get(k)!;
  const subs = subKeys.map((k) => `    ${k}: process.env.${k}`).join(",\n");
  return {
    name: "Substitute placeholders",
    uses: plain(ctx.refs.githubScript),
    env: subEnv,
    with: {
      script: lit(
        "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
          "setupGlobals(core, github, context, exec, io, getOctokit);\n\n" +
          "const substitutePlaceholders = require('${{ runner.temp }}/gh-aw/actions/substitute_placeholders.cjs');\n\n" +
          "// Call the substitution function\nreturn await substitutePlaceholders({\n  file: process.env.GH_AW_PROMPT,\n" +
          `  substitutions: {\n${subs}\n  }\n});\n`,
      ),
    },
  };
}

/** The repo-memory and cache-memory placeholders. */
function memoryPlaceholders(a: ActivationInput, subVars: Map<string, YValue>): void {
  const { ctx } = a;
  if (a.repoMemory) {
    const m = a.repoMemory;
    const num = (v: unknown, d: number) => (typeof v === "number" ? v : Number(v) || d);
    const fileSize = num(m["max-file-size"], 102400);
    const patch = num(m["max-patch-size"], 10240);
    const count = num(m["max-file-count"], 100);
    const globs = Array.isArray(m["file-glob"])
      ? m["file-glob"].map(String)
      : typeof m["file-glob"] === "string"
      ? [m["file-glob"]]
      : [];
    const constraints = "\n\n**Constraints:**\n" +
      (globs.length ? `- **Allowed Files**: Only files matching patterns: ${globs.join(", ")}\n` : "") +
      `- **Max File Size**: ${fileSize} bytes (${goFixed2(fileSize / 1048576)} MB) per file\n` +
      `- **Max File Count**: ${count} files per commit\n` +
      `- **Max Patch Size**: ${patch} bytes (${Math.round(patch / 1024)} KB) total per push (max: 1024 KB)\n`;
    const wiki = m.wiki === true;
    subVars.set("GH_AW_MEMORY_BRANCH_NAME", sq(repoMemoryBranch(m, ctx.id)));
    subVars.set("GH_AW_MEMORY_CONSTRAINTS", dq(constraints));
    subVars.set("GH_AW_MEMORY_DESCRIPTION", sq(m.description ? ` ${m.description}` : ""));
    subVars.set("GH_AW_MEMORY_DIR", sq("/tmp/gh-aw/repo-memory/default/"));
    subVars.set("GH_AW_MEMORY_TARGET_REPO", sq(" of the current repository"));
    subVars.set("GH_AW_WIKI_NOTE", wiki ? dq(WIKI_NOTE) : sq(""));
  }
  if (a.repoMemoryList) {
    subVars.set("GH_AW_MEMORY_ALLOWED_EXTENSIONS", sq(""));
    subVars.set(
      "GH_AW_MEMORY_LIST",
      dq(
        a.repoMemoryList.map((m) => {
          const id = String(m.id ?? "default");
          return `- **${id}**: \`/tmp/gh-aw/repo-memory/${id}/\` (branch: \`${
            String(m["branch-name"] ?? `memory/${id}`)
          }\`)\n`;
        }).join(""),
      ),
    );
  }
  if (a.promptFragments.includes("cache_memory_prompt_multi.md") && Array.isArray(a.cacheMemory)) {
    const dirs = (a.cacheMemory as Record<string, unknown>[]).map((c) => {
      const id = String(c?.id ?? "default");
      return [id, id === "default" ? "/tmp/gh-aw/cache-memory/" : `/tmp/gh-aw/cache-memory-${id}/`];
    });
    subVars.set("GH_AW_ALLOWED_EXTENSIONS", sq(""));
    subVars.set(
      "GH_AW_CACHE_EXAMPLES",
      dq(
        dirs.map(([, d]) =>
          `- \`${d}notes.txt\` - general notes and observations\n` +
          `- \`${d}notes.md\` - markdown formatted notes\n` +
          `- \`${d}preferences.json\` - user preferences and settings\n` +
          `- \`${d}history.jsonl\` - activity history in JSON Lines format\n` +
          `- \`${d}data.csv\` - tabular data\n` +
          `- \`${d}state/\` - organized state files in subdirectories (with allowed file types)\n`
        ).join(""),
      ),
    );
    subVars.set("GH_AW_CACHE_LIST", dq(dirs.map(([id, d]) => `- **${id}**: \`${d}\`\n`).join("")));
  } else if (a.promptFragments.some((f) => f.startsWith("cache_memory_prompt"))) {
    const cfg = a.cacheMemory && typeof a.cacheMemory === "object" && !Array.isArray(a.cacheMemory)
      ? a.cacheMemory as Record<string, unknown>
      : {};
    const exts = Array.isArray(cfg["allowed-extensions"]) ? cfg["allowed-extensions"].map(String) : [];
    subVars.set(
      "GH_AW_ALLOWED_EXTENSIONS",
      exts.length ? lit(`\n<allowed-extensions>${exts.join(",")}</allowed-extensions>`) : sq(""),
    );
    subVars.set("GH_AW_CACHE_DESCRIPTION", sq(""));
    subVars.set("GH_AW_CACHE_DIR", sq("/tmp/gh-aw/cache-memory/"));
  }
}

/** Placeholder validation, the prompt summary and the activation artifact. */
function closingSteps(a: ActivationInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  steps.push(
    shStep("Validate prompt placeholders", "validate_prompt_placeholders", "", {
      env: { GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt" },
      "#": POUTINE,
    }),
  );
  steps.push(
    shStep("Print prompt", "print_prompt_summary", "", {
      env: { GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt" },
      "#": POUTINE,
    }),
  );
  steps.push({
    name: "Upload activation artifact",
    if: plain("success()"),
    uses: plain(ctx.refs.upload),
    with: {
      name: "activation",
      "include-hidden-files": true,
      path: lit(
        "/tmp/gh-aw/aw_info.json\n/tmp/gh-aw/model_multipliers.json\n/tmp/gh-aw/aw-prompts/prompt.txt\n" +
          "/tmp/gh-aw/aw-prompts/prompt-template.txt\n/tmp/gh-aw/aw-prompts/prompt-import-tree.json\n" +
          `/tmp/gh-aw/github_rate_limits.jsonl\n/tmp/gh-aw/base\n/tmp/gh-aw/${
            engineDir(ctx.engineId)
          }/agents\n/tmp/gh-aw/${engineDir(ctx.engineId)}/skills\n`,
      ),
      "if-no-files-found": "ignore",
      "retention-days": 1,
    },
  });
  return steps;
}

/** The job's outputs, sorted. */
function activationOutputs(a: ActivationInput): Record<string, YValue> {
  const outputs: Record<string, YValue> = {
    ...(a.sanitize ? { body: plain("${{ steps.sanitized.outputs.body }}") } : {}),
    ...(a.experiments ? { experiments: plain("${{ steps.pick-experiment.outputs.experiments }}") } : {}),
    ...Object.fromEntries(
      (a.experiments?.names ?? []).map((n) => [n, plain(`\${{ steps.pick-experiment.outputs.${n} }}`)]),
    ),
    ...(a.statusComment
      ? {
        comment_id: plain("${{ steps.add-comment.outputs.comment-id }}"),
        comment_repo: plain("${{ steps.add-comment.outputs.comment-repo }}"),
        comment_url: plain("${{ steps.add-comment.outputs.comment-url }}"),
      }
      : { comment_id: dq(""), comment_repo: dq("") }),
    engine_id: plain("${{ steps.generate_aw_info.outputs.engine_id }}"),
    lockdown_check_failed: plain("${{ steps.generate_aw_info.outputs.lockdown_check_failed == 'true' }}"),
    model: plain("${{ steps.generate_aw_info.outputs.model }}"),
    ...(a.secrets.length > 0
      ? { secret_verification_result: plain("${{ steps.validate-secret.outputs.verification_result }}") }
      : {}),
    ...(a.labelRemoval
      ? { label_command: plain("${{ steps.remove_trigger_label.outputs.label_name }}") }
      : {}),
    ...TRACE_OUTPUTS,
    ...(a.commands ? { slash_command: plain("${{ needs.pre_activation.outputs.matched_command }}") } : {}),
    stale_lock_file_failed: plain("${{ steps.check-lock-file.outputs.stale_lock_file_failed == 'true' }}"),
    ...(a.sanitize
      ? {
        text: plain("${{ steps.sanitized.outputs.text }}"),
        title: plain("${{ steps.sanitized.outputs.title }}"),
      }
      : {}),
  };
  return sortedRecord(outputs);
}

const PR_EVENTS = [
  "pull_request",
  "pull_request_target",
  "pull_request_review",
  "pull_request_review_comment",
  "issue_comment",
];
const DISCUSSION_EVENTS = ["discussion", "discussion_comment"];

/**
 * Write scopes the activation job needs, as gh-aw scopes them by the triggering events: reactions write
 * to issues, PRs and discussions; status comments to issues and discussions; removing a trigger label
 * to issues (issue and PR labels) and discussions.
 */
export function activationWrites(a: {
  reaction?: string;
  statusComment: boolean;
  activationEvents?: string[];
  labelRemoval?: { events: string[] };
}): Record<string, string> {
  const ev = a.activationEvents ?? [];
  const out: Record<string, string> = {};
  const issueLike = ev.some((e) => e === "issues" || PR_EVENTS.includes(e));
  const disc = ev.some((e) => DISCUSSION_EVENTS.includes(e));
  if (a.reaction || a.statusComment) {
    if (issueLike) out.issues = "write";
    if (disc) out.discussions = "write";
  }
  if (a.reaction && ev.some((e) => PR_EVENTS.includes(e))) out["pull-requests"] = "write";
  if (a.labelRemoval) {
    if (a.labelRemoval.events.some((e) => e === "issues" || e === "pull_request")) out.issues = "write";
    if (a.labelRemoval.events.includes("discussion")) out.discussions = "write";
  }
  return out;
}

/** The `- **checkouts**` lines of the GitHub context (gh-aw v0.76 wording), one per configured checkout. */
export function checkoutLines(checkouts: Record<string, unknown>[]): string[] {
  if (checkouts.length === 0) return [];
  const out = [
    "- **checkouts**: The following repositories have been checked out and are available in the workspace:",
  ];
  for (const c of checkouts) {
    let rel = typeof c.path === "string" ? c.path.replace(/^\.\//, "") : "";
    if (rel === ".") rel = "";
    let repo = typeof c.repository === "string" && c.repository
      ? c.repository
      : "__GH_AW_GITHUB_REPOSITORY__";
    if (c.wiki === true && !repo.endsWith(".wiki")) repo += ".wiki";
    let line = `  - repo \`${repo}\` → \`$GITHUB_WORKSPACE${rel ? "/" + rel : ""}\``;
    if (!rel) line += " (cwd)";
    if (c.wiki === true) line += " (wiki)";
    if (c.current === true) {
      line += " (**current** - this is the repository you are working on; use this as the target for all " +
        "GitHub operations unless otherwise specified)";
    }
    const depth = c["fetch-depth"];
    if (depth === 0) line += " [full history, all branches available as remote-tracking refs]";
    else if (typeof depth === "number") line += ` [shallow clone, fetch-depth=${depth}]`;
    else line += " [shallow clone, fetch-depth=1 (default)]";
    const fetch = c.fetch === undefined
      ? []
      : Array.isArray(c.fetch)
      ? c.fetch.map(String)
      : [String(c.fetch)];
    if (fetch.length > 0) line += ` [additional refs fetched: ${fetch.join(", ")}]`;
    if (typeof c["sparse-checkout"] === "string" && c["sparse-checkout"].trim() !== "") {
      line += " [sparse checkout enabled]";
    }
    out.push(line);
  }
  out.push(
    "  - **Note**: If a branch you need is not in the list above and is not listed as an additional fetched ref, " +
      "it has NOT been checked out. For private repositories you cannot fetch it without proper authentication. " +
      "If the branch is required and not available, exit with an error and ask the user to add it to the " +
      '`fetch:` option of the `checkout:` configuration (e.g., `fetch: ["refs/pulls/open/*"]` for all open PR refs, ' +
      'or `fetch: ["main", "feature/my-branch"]` for specific branches).',
  );
  return out;
}

/** Job outputs render sorted by name (gh-aw writes them from a Go map). */
export function sortedRecord<T>(r: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(r).sort().map((k) => [k, r[k]]));
}

/** Go's `%.2f`: the exact binary value rounded half to even (0.125 → "0.12"). */
export function goFixed2(x: number): string {
  const scaled = x * 100;
  const floor = Math.floor(scaled);
  const r = scaled - floor === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return (r / 100).toFixed(2);
}

/** Prompt note gh-aw substitutes when `repo-memory.wiki` backs the memory with the repository wiki. */
const WIKI_NOTE = "\n\n> **GitHub Wiki**: This memory is backed by the GitHub Wiki for this repository. " +
  "Files use GitHub Wiki Markdown syntax. Follow GitHub Wiki conventions when creating or editing pages " +
  "(e.g., use standard Markdown headers, use `[[Page Name]]` syntax for internal wiki links, name page " +
  "files with spaces replaced by hyphens or use the wiki page title as the filename).";

/** A job-level `if:` as gh-aw writes it: long conditions as a folded block, short ones plain. */
export function jobIf(cond: string): YValue {
  return cond.length > MAX_EXPRESSION_LINE && !cond.includes("startsWith(")
    ? folded(breakLongExpression(cond).join("\n") + "\n")
    : plain(cond);
}

/**
 * The event condition gh-aw puts on `pre_activation` (or `activation` without it): the frontmatter `if:`,
 * the fork guard and the `pull_request.names` label filter, each combined left to right as `(a) && (b)`.
 */
export function eventCondition(
  userIf: string | undefined,
  forkGuard: boolean,
  labelNames?: string[],
): string | undefined {
  const parts = [
    userIf,
    forkGuard ? FORK_GUARD : undefined,
    labelNames?.length
      ? "github.event_name != 'pull_request' || github.event.action != 'labeled' || " +
        labelNames.map((n) => `github.event.label.name == '${n}'`).join(" || ")
      : undefined,
  ].filter((c): c is string => !!c);
  return parts.reduce<string | undefined>((acc, c) => (acc ? `(${acc}) && (${c})` : c), undefined);
}
