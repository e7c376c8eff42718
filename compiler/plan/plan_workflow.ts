/**
 * Stage 4 — plan: turns a loaded {@link WorkflowSource} into the {@link WorkflowPlan} (every job, the
 * top-level sections and the facts the lock header states). `planWorkflow` runs the steps in gh-aw's
 * order; each step below reads what earlier ones decided from the {@link Planning} it is handed.
 */
import { DEFAULT_TARGET } from "../targets/mod.ts";
import { workflowJobs } from "./jobs/builtin_jobs.ts";
import { creditAmount } from "./jobs/ai_credits.ts";
import { withCallerOutputs, withCallerSecrets } from "./workflow_call.ts";
import { parseSkill } from "./agent/skills.ts";
import { pluginRefs, pluginSupportProblem } from "./agent/plugins.ts";
import { firewallOf } from "../source/sandbox.ts";
import { modelCatalogOf } from "../source/model_catalog.ts";
import { posix } from "node:path";
import type { Diagnostic } from "../api.ts";
import { headerImportOrder } from "../source/imports.ts";
import { concurrencyFor, processTriggers } from "./triggers.ts";
import { resolveEngine } from "./engines/resolve.ts";
import { planSafeOutputs } from "./safe_outputs/plan.ts";
import { computeAllowedDomains } from "./network.ts";
import { type JobCtx, type Refs } from "./steps.ts";
import { type MultilineStyle, stepKeyOrder, userStepValue } from "./user_steps.ts";
import type { StepPlan } from "./types.ts";
import { plain, type YValue } from "../yaml/writer.ts";
import { diagnostic } from "../source/diagnostics.ts";
import type { WorkflowSource } from "../source/workflow_source.ts";
import type { TriggerInfo } from "./triggers.ts";
import type { EngineConfig } from "./engines/facts.ts";
import { githubToolConfig } from "../source/merge.ts";
import type { WorkflowPlan } from "./types.ts";
import type { Planning, PlanOptions } from "./planning.ts";
import { activationGates, planActivation, planPreActivation } from "./plan_activation.ts";
import { planAgent, planDetection } from "./plan_agent.ts";
import { planCustomJobs, planOutputJobs } from "./plan_outputs.ts";
import { scriptExpressionProblems } from "./script_expressions.ts";
import { firstHeading, hasContentsRead, otlpEnv, toY, versionOfSha } from "./workflow_values.ts";
import { enginesWith } from "./engines/registry.ts";
import { listOf, mappingOf, objectOf } from "../source/values.ts";
import type { Frontmatter } from "../source/schema.ts";
import { writtenEvent } from "../source/on_section.ts";

/** Plans one workflow; undefined when a diagnostic is an error (they are in `diagnostics`). */
export async function planWorkflow(
  written: WorkflowSource,
  options: PlanOptions,
  diagnostics: Diagnostic[],
): Promise<WorkflowPlan | undefined> {
  const { name, triggers, engine, safeOutputs } = await planBasics(written, options, diagnostics);
  if (diagnostics.some((d) => d.severity === "error")) return undefined;
  const src = engineTools(written, engine);
  const { path: source, id, file, frontmatter: data, merged } = src;

  const { frontmatter: frontmatterHash, body: bodyHash } = src.hashes;
  const { pinText, pinExact, refs } = await actionRefs(source, options, diagnostics, file.split);
  const ctx = jobContext(src, options, { name, triggers, engine, refs });
  const network = computeAllowedDomains(
    merged.network,
    engine.info,
    merged.mcpServers,
    [
      ...Object.keys(data.runtimes ?? {}),
      ...src.imports.flatMap((i) =>
        Object.keys(
          i.frontmatter.runtimes ?? {},
        )
      ),
    ],
    merged.tools,
    engine.model,
    (options.target ?? DEFAULT_TARGET).engines[engine.info.id]?.domains,
    (options.target ?? DEFAULT_TARGET).ecosystemHosts,
  );
  const w: Planning = {
    o: options,
    diagnostics,
    source,
    id,
    lockPath: src.lockPath,
    file,
    data,
    imports: src.imports,
    macroBodies: src.macroBodies,
    merged,
    name,
    triggers,
    engine,
    safeOutputs,
    frontmatterHash,
    pinText,
    ctx,
    network,
    timeout: (data["timeout-minutes"] as number | string | undefined) ?? 20,
    pinSteps: (steps, style) => pinUserSteps(steps, pinExact, style),
    jobs: {},
    rawJobs: workflowJobs(data.jobs, src.imports.map((i) => i.frontmatter.jobs)),
  };
  const gates = await activationGates(w);
  if (gates.hasPre) await planPreActivation(w, gates);
  const { beforeActivation, inlined } = planActivation(w, gates);
  const containers = await planAgent(w);
  await planDetection(w);
  await planOutputJobs(w);
  await planCustomJobs(w, gates, beforeActivation);
  withRuntimeFeatures(w.jobs, (options.target ?? DEFAULT_TARGET).jobs.runtimeFeaturesJobs);
  diagnostics.push(...scriptExpressionProblems(w.jobs, [
    { path: source, ...file.split, frontmatter: data },
    ...src.imports.map((i) => ({ path: i.path, ...i.file.split, frontmatter: i.frontmatter })),
  ]));
  if (diagnostics.some((d) => d.severity === "error")) return undefined;

  const env: Record<string, YValue> = {};
  for (const [k, v] of Object.entries(merged.env)) env[k] = toY(v);
  Object.assign(
    env,
    otlpEnv(
      merged.otlpEndpoints,
      id,
      name,
      engine.info.id,
      (options.target ?? DEFAULT_TARGET).otelAttributeEncoding,
    ),
  );
  const concurrency = concurrencyFor(data.concurrency, triggers, toY);
  // Later releases queue the workflow's runs when they generate its concurrency and cancel none.
  if (
    (options.target ?? DEFAULT_TARGET).queueWorkflowRuns && data.concurrency === undefined &&
    concurrency["cancel-in-progress"] === undefined
  ) concurrency.queue = "max";
  return {
    id,
    name,
    source,
    lockPath: src.lockPath,
    on: withCallerSecrets(withCallerOutputs(triggers.on, safeOutputs.types), [env, concurrency, w.jobs]),
    concurrency,
    runName: data["run-name"] ?? name,
    env,
    cacheNote: data.cache !== undefined && data.cache !== null ? true : undefined,
    emitStyle: (options.target ?? DEFAULT_TARGET).emit,
    jobs: w.jobs,
    header: {
      frontmatterHash,
      bodyHash,
      stopTime: gates.stopTime,
      strict: data.strict !== false,
      engineId: engine.info.id,
      model: engine.model,
      containers,
      mcpServers: w.manifestMcpServers,
      // As written: a slash command's generated pull-request triggers do not count.
      hasPullRequest: (options.target ?? DEFAULT_TARGET).emit.manifestHasPullRequest &&
          writtenEvent(data.on, "pull_request")
        ? true
        : undefined,
      description: typeof data.description === "string" ? data.description : undefined,
      sourceRef: typeof data.source === "string" ? data.source : undefined,
      imports: headerImportOrder(src.imports),
      inlinedImports: inlined,
      envKeys: Object.keys(objectOf(data.env)),
      compilerVersion: options.actionMode === "release" && options.target?.stampsCompilerVersion
        ? options.target.version
        : undefined,
      engineVersions: options.actionMode === "release" && options.target?.stampsCompilerVersion &&
          engine.info.version && engine.command === undefined
        ? { [engine.info.id]: engine.info.version }
        : undefined,
    },
  };
}

/**
 * The source as the engine sees its tools: an engine without a tool allowlist (crush, opencode) ignores the
 * merged `tools:` and gets only the GitHub tool with its defaults, as gh-aw does (no cache-memory, no web-fetch,
 * the default toolsets).
 */
function engineTools(src: WorkflowSource, engine: EngineConfig): WorkflowSource {
  if (engine.info.toolsAllowlist) return src;
  const tools = { github: {} };
  return {
    ...src,
    frontmatter: { ...src.frontmatter, tools },
    merged: { ...src.merged, tools, github: githubToolConfig(tools.github) },
  };
}

/** The workflow's name, triggers, engine and safe outputs, with the skill and plugin checks. */
async function planBasics(src: WorkflowSource, options: PlanOptions, diagnostics: Diagnostic[]) {
  const { path: source, id, file, frontmatter: data, merged } = src;
  const name = typeof data.name === "string" ? data.name : firstHeading(file.split.body) ?? id;
  const triggers = processTriggers(
    data.on,
    `${options.seedPrefix}${source}`,
    source,
    file.locate,
    diagnostics,
  );
  const engine = resolveEngine(
    data.engine,
    data.permissions,
    source,
    file.locate,
    diagnostics,
    options.target ?? DEFAULT_TARGET,
  );
  // A workflow-wide `model:` (later releases) is the engine's model unless `engine.model` names one.
  if (data.model !== undefined && engine.model === undefined) engine.model = data.model;
  for (const [index, item] of (Array.isArray(data.skills) ? data.skills : []).entries()) {
    const skill = parseSkill(String(item));
    const [line, column] = file.locate(["skills", index]);
    const at = { file: source, line, column, severity: "error" as const };
    if (typeof skill === "string") {
      diagnostics.push(diagnostic("invalid-skill", at, skill));
    } else if (skill.kind === "local" && (await options.read(`${skill.path}/SKILL.md`)) === undefined) {
      diagnostics.push(
        diagnostic("skill-not-found", at, `skill "${item}" has no ${skill.path}/SKILL.md in the repository`),
      );
    } else if (skill.kind === "local" && merged.checkoutDisabled) {
      diagnostics.push(
        diagnostic(
          "skill-needs-checkout",
          at,
          `skill "${item}" is copied from the checked-out repository, but checkout is false`,
        ),
      );
    }
  }
  const plugins = pluginRefs(data.plugins);
  const pluginProblem = pluginSupportProblem(
    engine.info,
    plugins,
    enginesWith((e) => e.pluginInstall !== undefined),
  );
  if (pluginProblem) {
    const [line, column] = file.locate(["plugins"], true);
    diagnostics.push(diagnostic("plugins-unsupported", { file: source, line, column }, pluginProblem));
  }
  const safeOutputs = planSafeOutputs(
    merged.safeOutputs,
    id,
    source,
    diagnostics,
    engine.info.instructionFiles,
    data.footer,
    (options.target ?? DEFAULT_TARGET).jobs.safeOutputs,
  );
  return { name, triggers, engine, safeOutputs };
}

/** Pins the actions every lock references; `pinText` pins any other on demand. */
async function actionRefs(
  source: string,
  options: PlanOptions,
  diagnostics: Diagnostic[],
  split: { frontmatterText: string; frontmatterStartLine: number },
) {
  // An action the author wrote is located at its `uses:` line; the compiler's own references stay at 1:1.
  // Every pin asks where its `uses:` was written: the frontmatter is split into lines once.
  let frontmatterLines: string[] | undefined;
  const usesAt = (repo: string, version: string) => {
    const lines = frontmatterLines ??= split.frontmatterText.split("\n");
    const needle = `${repo}@${version}`;
    const index = lines.findIndex((line) => /\buses:/.test(line) && line.includes(needle));
    return index < 0
      ? { file: source, line: 1, column: 1 }
      : { file: source, line: split.frontmatterStartLine + index, column: lines[index].indexOf(needle) + 1 };
  };
  const target = options.target ?? DEFAULT_TARGET;
  // The compiler's own actions at the target release's tags (the planners name v0.76.1's).
  const pinBuiltin = (repo: string, version: string) => pinExact(repo, target.actionTags[repo] ?? version);
  const pinExact = async (repo: string, version: string): Promise<string> => {
    const p = await options.pins.pin(repo, version, diagnostics, usesAt(repo, version));
    if (!p) return `${repo}@${version}`;
    // A SHA names the version it is pinned as; a resolved shorter ref is noted as gh-aw does.
    if (p.version === p.sha) return `${repo}@${p.sha} # ${versionOfSha(options.pins, repo, p.sha) ?? p.sha}`;
    return `${repo}@${p.sha} # ${p.version}${p.version !== version ? ` (source ${version})` : ""}`;
  };
  const pinText = pinBuiltin;
  const refs: Refs = {
    checkout: await pinText("actions/checkout", "v6.0.2"),
    githubScript: await pinText("actions/github-script", "v9.0.0"),
    upload: options.ghes
      ? await pinText("actions/upload-artifact", "v3.2.2")
      : await pinText("actions/upload-artifact", "v7.0.1"),
    download: options.ghes
      ? await pinText("actions/download-artifact", "v3.1.0")
      : await pinText("actions/download-artifact", "v8.0.1"),
  };
  // The same pin, annotated as gh-aw writes a `@v9` reference (no lock lookup for the short ref).
  refs.githubScriptV9 = /# v9\.\d+\.\d+$/.test(refs.githubScript)
    ? `${refs.githubScript} (source v9)`
    : refs.githubScript;
  if (options.actionMode === "release") {
    refs.setup = await pinText("github/gh-aw-actions/setup", target.version);
  }
  // A release that keeps the daily AI-credit usage in the Actions cache.
  if (target.jobs.aiCredits) {
    refs.cacheRestore = await pinText("actions/cache/restore", "v5.0.5");
    refs.cacheSave = await pinText("actions/cache/save", "v5.0.5");
  }
  return { pinText, pinExact, refs };
}

/** The settings every job builder reads. */
function jobContext(
  src: WorkflowSource,
  options: PlanOptions,
  { name, triggers, engine, refs }: { name: string; triggers: TriggerInfo; engine: EngineConfig; refs: Refs },
): JobCtx {
  const { id, frontmatter: data, merged, imports } = src;
  const lockPath = src.lockPath;
  const rawOnMain = triggers.raw;
  return {
    contentsRead: hasContentsRead(data.permissions),
    otlp: merged.otlpEndpoints.length > 0,
    commands: triggers.slashCommand?.names,
    experiments: data.experiments !== undefined,
    maxEffectiveTokens: data["max-effective-tokens"],
    aiCreditLimits: {
      run: creditAmount(data["max-ai-credits"]),
      daily: creditAmount(data["max-daily-ai-credits"]),
    },
    statusComment: rawOnMain["status-comment"] === true ||
      ((!!triggers.slashCommand || !!triggers.labelCommand) && rawOnMain["status-comment"] !== false),
    model: engine.model,
    cacheMemory: merged.tools["cache-memory"] !== undefined && merged.tools["cache-memory"] !== false,
    cacheMemoryCount: Array.isArray(merged.tools["cache-memory"]) ? merged.tools["cache-memory"].length : 1,
    copilotRequests: engine.usesCopilotRequests,
    grantsCopilotRequests: engine.grantsCopilotRequests,
    id,
    name,
    lockFile: posix.basename(lockPath),
    engine: engine.info,
    engineCommand: engine.command !== undefined,
    // The author's `sandbox.agent`, else the AWF release of a target that pins its own.
    firewall: data.sandbox !== undefined
      ? firewallOf(data.sandbox, options.target?.awf)
      : options.target?.awf
      ? firewallOf(undefined, options.target.awf)
      : undefined,
    models: modelCatalogOf(data, imports.map((i) => i.frontmatter)),
    actionMode: options.actionMode,
    ghAwRelease: (options.target ?? DEFAULT_TARGET).version,
    target: options.target ?? DEFAULT_TARGET,
    releaseAwf: options.target?.awf,
    refs,
    failureIssueExpires: options.failureIssueExpires,
    source: typeof data.source === "string" ? data.source : undefined,
    trackerId: typeof data["tracker-id"] === "string" ? data["tracker-id"] : undefined,
    workflowCall: "workflow_call" in triggers.on,
    // As written, like the manifest's `has_pull_request`: a slash command's generated pull-request trigger
    // does not count.
    pullRequestEvent: writtenEvent(data.on, "pull_request"),
    sandboxInfo: sandboxInfoOf(data.sandbox),
  };
}

/** `sandbox.mcp.version` and `sandbox.agent.runtime`, when written as text. */
function sandboxInfoOf(
  sandbox: Frontmatter["sandbox"],
): { gatewayVersion?: string; agentRuntime?: string } {
  const agent = sandbox?.agent;
  const text = (v: unknown) => typeof v === "string" ? v : undefined;
  return {
    gatewayVersion: text(mappingOf(sandbox?.mcp).version),
    agentRuntime: typeof agent === "string" ? undefined : text(agent?.runtime),
  };
}

/** Gives the named built-in jobs `GH_AW_RUNTIME_FEATURES` in their env, in its sorted place. */
function withRuntimeFeatures(jobs: Planning["jobs"], names: readonly string[]): void {
  for (const name of names) {
    const job = jobs[name];
    if (!job) continue;
    const env = { ...job.env, GH_AW_RUNTIME_FEATURES: plain("${{ vars.GH_AW_RUNTIME_FEATURES }}") };
    job.env = Object.fromEntries(Object.entries(env).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
  }
}

/** User steps with their `uses:` pinned. */
async function pinUserSteps(
  steps: unknown,
  pinText: (repo: string, version: string) => Promise<string>,
  style: MultilineStyle = "literal",
): Promise<StepPlan[]> {
  const out: StepPlan[] = [];
  for (const s of listOf(steps).map((x) => objectOf(x))) {
    const step: StepPlan = {};
    for (const k of stepKeyOrder(Object.keys(s), style)) step[k] = userStepValue(s[k], style);
    if (
      typeof s.uses === "string" && !s.uses.startsWith("./") && !s.uses.startsWith("docker://") &&
      s.uses.includes("@")
    ) {
      const [repo, version] = s.uses.split("@");
      step.uses = plain(await pinText(repo, version));
    }
    out.push(step);
  }
  return out;
}
