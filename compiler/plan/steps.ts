/** Shared pieces of the generated jobs: the setup prologue, script steps, artifact steps. */
import type { EngineFacts } from "./engines/facts.ts";
import type { StepPlan } from "./types.ts";
import { DEFAULT_TARGET, type GhAwTarget } from "../targets/mod.ts";
import { dq, lit, plain, type YValue } from "../yaml/writer.ts";
import type { ModelCatalog } from "../source/model_catalog.ts";
import type { Firewall } from "../source/sandbox.ts";
import { VERSIONS } from "../data/versions.ts";

/** Pinned references of the actions the compiler emits. */
export interface Refs {
  checkout: string;
  githubScript: string;
  upload: string;
  download: string;
  setup?: string;
  /** `actions/cache/restore` and `actions/cache/save`, pinned when a target keeps a usage cache. */
  cacheRestore?: string;
  cacheSave?: string;
  /** `actions/github-script` as gh-aw pins a `@v9` reference (`# v9.0.0 (source v9)`), e.g. the lockdown step. */
  githubScriptV9?: string;
}

/** Context every job builder receives. */
export interface JobCtx {
  id: string;
  name: string;
  lockFile: string;
  /** The workflow's engine (its facts: id, version, what the shared builders ask of it). */
  engine: EngineFacts;
  /** Whether the author's `engine.command` runs instead of the engine's CLI (no CLI version is installed). */
  engineCommand?: boolean;
  actionMode: "dev" | "release";
  /** The gh-aw release a release-mode lock runs with (the target's version). */
  ghAwRelease?: string;
  /** The gh-aw release compiled for; the job planners ask it what differs (default: v0.76.1). */
  target?: GhAwTarget;
  /** The AWF release the target pins (what the run info reports), when it pins its own. */
  releaseAwf?: string;
  refs: Refs;
  /** Whether the workflow's permissions can read repository contents (gates PR-checkout reporting). */
  contentsRead?: boolean;
  /** `aw.json` maintenance.action_failure_issue_expires (hours), when set. */
  failureIssueExpires?: number;
  /** Frontmatter `source:` (`owner/repo/path@ref`), when set. */
  source?: string;
  /** Frontmatter `tracker-id`, when set. */
  trackerId?: string;
  /** Frontmatter `max-ai-credits` / `max-daily-ai-credits`, normalised (targets with AI-credit accounting). */
  aiCreditLimits?: { run?: string; daily?: string };
  /** `sandbox.mcp.version` and `sandbox.agent.runtime`, when set (what later releases' run info reports). */
  sandboxInfo?: { gatewayVersion?: string; agentRuntime?: string };
  /** Whether the `on:` as written has `pull_request` (a slash command's generated trigger does not count). */
  pullRequestEvent?: boolean;
  /** Frontmatter `max-effective-tokens`. */
  maxEffectiveTokens?: number | string;
  /** Whether the workflow declares `experiments:`. */
  experiments?: boolean;
  /** Whether a status comment is posted in activation and updated by the conclusion. */
  statusComment?: boolean;
  /** Slash-command names, when the workflow is a command. */
  commands?: string[];
  /** `engine.model`, when configured. */
  model?: string;
  /** Whether `tools.cache-memory` is enabled. */
  cacheMemory?: boolean;
  /** How many caches `tools.cache-memory` declares (a list declares several). */
  cacheMemoryCount?: number;
  /** Whether `permissions.copilot-requests: write` lets copilot use the workflow token. */
  copilotRequests?: boolean;
  /**
   * Whether the workflow's permissions grant `copilot-requests: write`; gh-aw passes the grant on to the
   * detection job even when the engine is not copilot.
   */
  grantsCopilotRequests?: boolean;
  /** Whether OTLP export is configured (adds the header-masking step). */
  otlp?: boolean;
  /** The AWF firewall (`sandbox.agent.version` / `images`); the targeted release when absent. */
  firewall?: Firewall;
  /** `models:` aliases and per-model costs (main and imports merged). */
  models?: ModelCatalog;
  /** Whether the workflow can be called (`workflow_call`): setup steps receive the caller's aw_context. */
  workflowCall?: boolean;
}

/** The target of the workflow a job belongs to (v0.76.1 when the context names none). */
export function targetOf(ctx: Pick<JobCtx, "target">): GhAwTarget {
  return ctx.target ?? DEFAULT_TARGET;
}

/**
 * Where a job reads the artifact prefix of a callable workflow from: the activation job's own step, the
 * activation job's output (jobs that need `activation`), or the agent job's (jobs that only need `agent`).
 */
export type ArtifactPrefixSource = "activation-step" | "activation" | "agent";

const ARTIFACT_PREFIX: Record<ArtifactPrefixSource, string> = {
  "activation-step": "${{ steps.artifact-prefix.outputs.prefix }}",
  activation: "${{ needs.activation.outputs.artifact_prefix }}",
  agent: "${{ needs.agent.outputs.artifact_prefix }}",
};

/**
 * An artifact's name. A callable workflow prefixes every artifact with a hash of its inputs and run attempt
 * (the activation job's "Compute artifact prefix"), so two calls in one caller run do not clash.
 */
export function artifactName(ctx: JobCtx, name: string, from: ArtifactPrefixSource): string {
  return ctx.workflowCall ? ARTIFACT_PREFIX[from] + name : name;
}

/** Engines whose run info reports the firewall as off and no AWF version (gh-aw v0.76). */

/** The "Mask OTLP telemetry headers" step, when OTLP export is configured. */
export function otlpMaskSteps(ctx: JobCtx): StepPlan[] {
  return ctx.otlp ? [shStep("Mask OTLP telemetry headers", "mask_otlp_headers")] : [];
}

/** `script:` body running a runtime `.cjs` module's `main`. */
export function scriptBody(module: string, call = "await main();"): YValue {
  return lit(
    "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
      "setupGlobals(core, github, context, exec, io, getOctokit);\n" +
      `const { main } = require('\${{ runner.temp }}/gh-aw/actions/${module}.cjs');\n` +
      `${call}\n`,
  );
}

/** In dev mode, the checkout that restores gh-aw's `actions/setup` folder after a job replaced the workspace. */
export function restoreActionsFolderSteps(ctx: JobCtx): StepPlan[] {
  if (ctx.actionMode !== "dev") return [];
  return [{
    name: "Restore actions folder",
    if: plain("always()"),
    uses: plain(ctx.refs.checkout),
    with: {
      repository: "github/gh-aw",
      "sparse-checkout": lit("actions/setup\n"),
      "sparse-checkout-cone-mode": true,
      "persist-credentials": false,
    },
  }];
}

/** Sets the bot identity and re-authenticates `origin` with the job token, before any job pushes commits. */
export function gitCredentialsStep(ctx?: JobCtx): StepPlan {
  // Later releases run the runtime's script with the repository and server from the environment.
  if (ctx && targetOf(ctx).jobs.gitCredentialsScript) {
    return {
      name: "Configure Git credentials",
      env: {
        GITHUB_REPOSITORY: plain("${{ github.repository }}"),
        GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
        GITHUB_TOKEN: plain("${{ github.token }}"),
      },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/configure_git_credentials.sh"'),
    };
  }
  return {
    name: "Configure Git credentials",
    env: {
      REPO_NAME: plain("${{ github.repository }}"),
      SERVER_URL: plain("${{ github.server_url }}"),
      GITHUB_TOKEN: plain("${{ github.token }}"),
    },
    run: lit(
      'git config --global user.email "github-actions[bot]@users.noreply.github.com"\n' +
        'git config --global user.name "github-actions[bot]"\ngit config --global am.keepcr true\n' +
        "# Re-authenticate git with GitHub token\n" + 'SERVER_URL_STRIPPED="${SERVER_URL#https://}"\n' +
        'git remote set-url origin "https://x-access-token:${GITHUB_TOKEN}@${SERVER_URL_STRIPPED}/${REPO_NAME}.git"\n' +
        'echo "Git configured with standard GitHub Actions identity"\n',
    ),
  };
}

/** A github-script step calling a runtime module. */
export function scriptStep(
  ctx: JobCtx,
  name: string,
  module: string,
  opts: {
    id?: string;
    if?: YValue;
    env?: Record<string, YValue>;
    token?: string;
    call?: string;
    continueOnError?: boolean;
  } = {},
): StepPlan {
  const step: StepPlan = { name };
  if (opts.id) step.id = opts.id;
  if (opts.if) step.if = opts.if;
  if (opts.continueOnError) step["continue-on-error"] = true;
  step.uses = plain(ctx.refs.githubScript);
  if (opts.env) step.env = opts.env;
  step.with = {};
  if (opts.token) step.with["github-token"] = plain(opts.token);
  step.with.script = scriptBody(module, opts.call);
  return step;
}

/** A step running a runtime shell script. */
export function shStep(name: string, script: string, args = "", extra: Partial<StepPlan> = {}): StepPlan {
  return {
    name,
    ...extra,
    run: plain(`bash "\${RUNNER_TEMP}/gh-aw/actions/${script}.sh"${args ? " " + args : ""}`),
  };
}

/**
 * The gh-aw version the runtime scripts are told (`GH_AW_VERSION`): `dev` for a dev-mode lock (scripts from
 * a gh-aw checkout), the pinned release for a release-mode lock, which must carry no dev-build details.
 */
export function ghAwVersion(ctx: Pick<JobCtx, "actionMode" | "ghAwRelease">): string {
  return ctx.actionMode === "release" ? ctx.ghAwRelease ?? VERSIONS.ghAwRelease : "dev";
}

/** Whether a job checks out gh-aw's `actions` folder to run its setup action (dev mode, or no release pin). */
export function checksOutActionsFolder(ctx: JobCtx): boolean {
  return ctx.actionMode !== "release" || !ctx.refs.setup;
}

/** The setup prologue of every job (dev: checkout actions + local setup; release: the pinned setup action). */
export function setupSteps(ctx: JobCtx, traced: boolean | string): StepPlan[] {
  const from = typeof traced === "string" ? traced : "activation";
  const withBlock: Record<string, YValue> = {
    destination: plain("${{ runner.temp }}/gh-aw/actions"),
    "job-name": plain("${{ github.job }}"),
  };
  if (traced) {
    withBlock["trace-id"] = plain(`\${{ needs.${from}.outputs.setup-trace-id }}`);
    withBlock["parent-span-id"] = plain(
      `\${{ needs.${from}.outputs.setup-parent-span-id || needs.${from}.outputs.setup-span-id }}`,
    );
  }
  const env: Record<string, YValue> = {
    GH_AW_SETUP_WORKFLOW_NAME: dq(ctx.name),
    GH_AW_CURRENT_WORKFLOW_REF: plain(
      `\${{ github.repository }}/.github/workflows/${ctx.lockFile}@\${{ github.ref }}`,
    ),
    ...(ctx.engine.version ? { GH_AW_INFO_VERSION: dq(ctx.engine.version) } : {}),
    ...(!ctx.engine.reportsFirewall
      ? {}
      : { GH_AW_INFO_AWF_VERSION: dq(ctx.firewall?.version ?? VERSIONS.awf) }),
    ...(ctx.source ? { GH_AW_INFO_BODY_MODIFIED: dq("false") } : {}),
    GH_AW_INFO_ENGINE_ID: dq(ctx.engine.id),
    ...(ctx.workflowCall ? { GH_AW_SETUP_AW_CONTEXT: plain("${{ inputs.aw_context }}") } : {}),
  };
  if (!checksOutActionsFolder(ctx) && ctx.refs.setup) {
    return [{ name: "Setup Scripts", id: "setup", uses: plain(ctx.refs.setup), with: withBlock, env }];
  }
  return [
    {
      name: "Checkout actions folder",
      uses: plain(ctx.refs.checkout),
      with: { repository: "github/gh-aw", "sparse-checkout": lit("actions\n"), "persist-credentials": false },
    },
    { name: "Setup Scripts", id: "setup", uses: "./actions/setup", with: withBlock, env },
  ];
}

/** Download the `agent` artifact and expose `GH_AW_AGENT_OUTPUT`; `from`: where the job reads the prefix. */
export function agentOutputSteps(ctx: JobCtx, from: ArtifactPrefixSource = "activation"): StepPlan[] {
  // Later releases also upload a small fallback artifact and take whichever of the two arrived.
  const fallback = targetOf(ctx).jobs.agentOutputFallback;
  const exportLine = 'echo "GH_AW_AGENT_OUTPUT=/tmp/gh-aw/agent_output.json" >> "$GITHUB_OUTPUT"\n';
  return [
    {
      name: "Download agent output artifact",
      id: "download-agent-output",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: fallback
        ? {
          pattern: dq(
            `{${artifactName(ctx, "agent", from)},${artifactName(ctx, "agent-output-fallback", from)}}`,
          ),
          "merge-multiple": true,
          path: "/tmp/gh-aw/",
        }
        : { name: artifactName(ctx, "agent", from), path: "/tmp/gh-aw/" },
    },
    {
      name: "Setup agent output environment variable",
      id: "setup-agent-output-env",
      if: plain("steps.download-agent-output.outcome == 'success'"),
      run: lit(
        'mkdir -p /tmp/gh-aw/\nfind "/tmp/gh-aw/" -type f -print\n' +
          (fallback ? `if [ -f "/tmp/gh-aw/agent_output.json" ]; then\n  ${exportLine}fi\n` : exportLine),
      ),
    },
  ];
}

/** Standard outputs exposing the setup trace ids. */
export const TRACE_OUTPUTS: Record<string, YValue> = {
  "setup-parent-span-id": plain("${{ steps.setup.outputs.parent-span-id || steps.setup.outputs.span-id }}"),
  "setup-span-id": plain("${{ steps.setup.outputs.span-id }}"),
  "setup-trace-id": plain("${{ steps.setup.outputs.trace-id }}"),
};

/** The workflow-level token expression used by write steps. */
export const WRITE_TOKEN = "${{ secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** Source-related env (`GH_AW_WORKFLOW_SOURCE[_URL]`, `GH_AW_TRACKER_ID`) shared by conclusion steps. */
export function sourceEnvOf(ctx: JobCtx): Record<string, YValue> {
  const env: Record<string, YValue> = {};
  const m = ctx.source ? /^([^/]+)\/([^/]+)\/(.+)@(\S+)$/.exec(ctx.source) : null;
  if (ctx.source) env.GH_AW_WORKFLOW_SOURCE = dq(ctx.source);
  env.GH_AW_WORKFLOW_SOURCE_URL = m
    ? dq(`\${{ github.server_url }}/${m[1]}/${m[2]}/blob/${m[4]}/${m[3]}`)
    : dq(
      `\${{ github.server_url }}/\${{ github.repository }}/blob/\${{ github.ref_name }}/.github/workflows/${ctx.id}.md`,
    );
  if (ctx.trackerId) env.GH_AW_TRACKER_ID = dq(ctx.trackerId);
  return env;
}
