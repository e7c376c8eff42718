/** Compiles one workflow: parse → validate → resolve imports → plan → emit. */
import { parseSkill } from "./plan/agent/skills.ts";
import { pluginRefs, pluginSupportProblem } from "./plan/agent/plugins.ts";
import { firewallOf } from "./source/sandbox.ts";
import { modelCatalogOf } from "./source/model_catalog.ts";
import { posix } from "node:path";
import type { CompiledWorkflow, Diagnostic, FileReader } from "./api.ts";
import { parseWorkflowFile } from "./source/parse.ts";
import { validateFrontmatter } from "./source/schema.ts";
import { headerImportOrder, resolveImports } from "./source/imports.ts";
import { computeBodyHash, computeFrontmatterHash } from "./source/hash.ts";
import { agentConcurrency, concurrencyFor, processTriggers } from "./plan/triggers.ts";
import { ENGINES, resolveEngine } from "./plan/engines.ts";
import { planSafeOutputs } from "./plan/safe_outputs/plan.ts";
import { computeAllowedDomains, expandEcosystems } from "./plan/network.ts";
import { type JobCtx, type Refs } from "./plan/steps.ts";
import {
  activationJob,
  bodyExpressions,
  eventCondition,
  exprEnvName,
  preActivationJob,
} from "./plan/jobs/activation.ts";
import { mcpContainerImages } from "./plan/mcp/github.ts";
import { agentJob } from "./plan/jobs/agent.ts";
import { detectRuntimes, runtimeSetupSteps } from "./plan/agent/runtimes.ts";
import { userStepValue } from "./plan/user_steps.ts";
import { copilotDetectionJob, DETECTION_ENGINES, type DetectionEngine } from "./plan/jobs/detection.ts";
import { pushExperimentsStateJob, pushRepoMemoryJob, updateCacheMemoryJob } from "./plan/jobs/memory.ts";
import { uploadAssetsJob } from "./plan/jobs/assets.ts";
import {
  customJob,
  customJobNames,
  jobsBeforeActivation,
  preActivationExtras,
  referencedCustomJobs,
  safeJob,
} from "./plan/jobs/custom.ts";
import { conclusionJob, messagesJson, safeOutputsJob } from "./plan/jobs/safe_outputs.ts";
import type { JobPlan, StepPlan } from "./plan/types.ts";
import { emitBody } from "./emit/emit.ts";
import { renderHeader } from "./emit/header.ts";
import { BUILTIN_PINS, type PinResolver } from "./plan/pins.ts";
import { lit, plain, sq, type YValue } from "./yaml/writer.ts";
import { mergeImports } from "./source/merge.ts";
import { readLockMetadata } from "./source/lock_metadata.ts";
import { applyContainerPins, type ContainerPin } from "./source/container_pins.ts";
import { applyWorkflowTargets, readWorkflowTargets } from "./plan/safe_outputs/dynamic_tools.ts";
import { applyCommentMemory } from "./plan/safe_outputs/agent_steps.ts";
import { diagnostic } from "./source/diagnostics.ts";

/** Options for one workflow compile. */
export interface WorkflowCompileOptions {
  source: string;
  read: FileReader;
  actionMode: "dev" | "release";
  ghes: boolean;
  seedPrefix: string;
  pins: PinResolver;
  now: Date;
  failureIssueExpires?: number;
  /** `aw.json` `container_pins`: images replaced by `image@digest` wherever the lock pulls them. */
  containerPins?: Readonly<Record<string, ContainerPin>>;
}

const SAFE_EVENTS = [
  "schedule",
  "workflow_dispatch",
  "push",
  "repository_dispatch",
  "merge_group",
  "create",
  "delete",
];

/** `on:` keys whose events carry text the activation job sanitizes (gh-aw's content events). */
const CONTENT_EVENTS = [
  "issues",
  "pull_request",
  "pull_request_target",
  "issue_comment",
  "pull_request_review_comment",
  "pull_request_review",
  "discussion",
  "discussion_comment",
  "slash_command",
];

/** Compiles a single workflow file. */
export async function compileWorkflow(o: WorkflowCompileOptions): Promise<CompiledWorkflow> {
  const lockPath = o.source.replace(/\.md$/, ".lock.yml");
  const id = posix.basename(o.source, ".md");
  const diagnostics: Diagnostic[] = [];
  const result = (): CompiledWorkflow => ({ source: o.source, lockPath, dependencies, diagnostics });
  const dependencies = [o.source];
  const content = await o.read(o.source);
  if (content === undefined) {
    diagnostics.push(
      diagnostic("not-found", { file: o.source, line: 1, column: 1 }, `workflow ${o.source} not found`),
    );
    return result();
  }
  const file = parseWorkflowFile(o.source, content);
  diagnostics.push(...file.diagnostics);
  if (!file.split.hasFrontmatter) {
    diagnostics.push(
      diagnostic("no-frontmatter", { file: o.source, line: 1, column: 1 }, "the workflow has no frontmatter"),
    );
  }
  if (diagnostics.some((d) => d.severity === "error")) return result();
  const data = file.data;
  diagnostics.push(...validateFrontmatter(file, false));
  if (!file.split.body.trim()) {
    diagnostics.push(
      diagnostic(
        "empty-body",
        { file: o.source, line: 1, column: 1 },
        "the workflow body (instructions for the agent) is empty",
      ),
    );
  }
  const { imports, diagnostics: importDiags } = await resolveImports(file, o.read);
  diagnostics.push(...importDiags);
  dependencies.push(...imports.map((i) => i.path));
  if (diagnostics.some((d) => d.severity === "error")) return result();

  const merged = mergeImports(data, imports, o.source, diagnostics);
  const name = typeof data.name === "string" ? data.name : firstHeading(file.split.body) ?? id;
  const triggers = processTriggers(data.on, `${o.seedPrefix}${o.source}`, o.source, file.locate, diagnostics);
  const engine = resolveEngine(data.engine, data.permissions, o.source, file.locate, diagnostics);
  for (const [index, item] of (Array.isArray(data.skills) ? data.skills : []).entries()) {
    const skill = parseSkill(String(item));
    const [line, column] = file.locate(["skills", index]);
    const at = { file: o.source, line, column, severity: "error" as const };
    if (typeof skill === "string") {
      diagnostics.push(diagnostic("invalid-skill", at, skill));
    } else if (skill.kind === "local" && (await o.read(`${skill.path}/SKILL.md`)) === undefined) {
      diagnostics.push(
        diagnostic("skill-not-found", at, `skill "${item}" has no ${skill.path}/SKILL.md in the repository`),
      );
    } else if (skill.kind === "local" && data.checkout === false) {
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
  const pluginProblem = pluginSupportProblem(engine.info.id, plugins);
  if (pluginProblem) {
    const [line, column] = file.locate(["plugins"], true);
    diagnostics.push(diagnostic("plugins-unsupported", { file: o.source, line, column }, pluginProblem));
  }
  const safeOutputs = planSafeOutputs(merged.safeOutputs, id, o.source, diagnostics, engine.info.id);
  if (diagnostics.some((d) => d.severity === "error")) return result();

  const frontmatterHash = await computeFrontmatterHash(o.source, content, o.read);
  const bodyHash = await computeBodyHash(o.source, content, o.read);

  // Pins.
  const at = { file: o.source, line: 1, column: 1 };
  const pinText = async (repo: string, version: string): Promise<string> => {
    const p = await o.pins.pin(repo, version, diagnostics, at);
    if (!p) return `${repo}@${version}`;
    // A SHA names the version it is pinned as; a resolved shorter ref is noted as gh-aw does.
    if (p.version === p.sha) return `${repo}@${p.sha} # ${versionOfSha(o.pins, repo, p.sha) ?? p.sha}`;
    return `${repo}@${p.sha} # ${p.version}${p.version !== version ? ` (source ${version})` : ""}`;
  };
  const refs: Refs = {
    checkout: await pinText("actions/checkout", "v6.0.2"),
    githubScript: await pinText("actions/github-script", "v9.0.0"),
    upload: o.ghes
      ? await pinText("actions/upload-artifact", "v3.2.2")
      : await pinText("actions/upload-artifact", "v7.0.1"),
    download: o.ghes
      ? await pinText("actions/download-artifact", "v3.1.0")
      : await pinText("actions/download-artifact", "v8.0.1"),
  };
  // The same pin, annotated as gh-aw writes a `@v9` reference (no lock lookup for the short ref).
  refs.githubScriptV9 = /# v9\.\d+\.\d+$/.test(refs.githubScript)
    ? `${refs.githubScript} (source v9)`
    : refs.githubScript;
  if (o.actionMode === "release") refs.setup = await pinText("github/gh-aw-actions/setup", "v0.76.1");
  const rawOnMain = triggers.raw;
  const ctx: JobCtx = {
    contentsRead: hasContentsRead(data.permissions),
    otlp: merged.otlpEndpoints.length > 0,
    commands: triggers.slashCommand?.names,
    experiments: !!data.experiments && typeof data.experiments === "object",
    maxEffectiveTokens: data["max-effective-tokens"] as number | string | undefined,
    statusComment: rawOnMain["status-comment"] === true ||
      ((!!triggers.slashCommand || !!triggers.labelCommand) && rawOnMain["status-comment"] !== false),
    model: engine.model,
    cacheMemory: merged.tools["cache-memory"] !== undefined && merged.tools["cache-memory"] !== false,
    copilotRequests: engine.usesCopilotRequests,
    id,
    name,
    lockFile: posix.basename(lockPath),
    engineId: engine.info.id,
    engineVersion: engine.info.version,
    firewall: data.sandbox !== undefined ? firewallOf(data.sandbox) : undefined,
    models: modelCatalogOf(data, imports.map((i) => i.file.data)),
    actionMode: o.actionMode,
    refs,
    failureIssueExpires: o.failureIssueExpires,
    source: typeof data.source === "string" ? data.source : undefined,
    trackerId: typeof data["tracker-id"] === "string" ? data["tracker-id"] : undefined,
    workflowCall: "workflow_call" in triggers.on,
  };

  // Network.
  const network = computeAllowedDomains(merged.network, engine.info.id, merged.mcpServers, [
    ...Object.keys(data.runtimes && typeof data.runtimes === "object" ? data.runtimes : {}),
    ...imports.flatMap((i) =>
      Object.keys(
        i.file.data.runtimes && typeof i.file.data.runtimes === "object" ? i.file.data.runtimes : {},
      )
    ),
  ], merged.tools);
  const timeout = (data["timeout-minutes"] as number | string | undefined) ?? 20;

  // Custom steps: pin their uses.
  const pinSteps = async (steps: unknown): Promise<StepPlan[]> => {
    const out: StepPlan[] = [];
    for (const s of (Array.isArray(steps) ? steps : []) as Record<string, unknown>[]) {
      const step: StepPlan = {};
      for (const k of Object.keys(s).sort()) step[k] = userStepValue(s[k]);
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
  };

  // gh-aw-only `on:` keys (skip-if-*, github-app…) may also come from imports; the main workflow wins.
  const rawOn: Record<string, unknown> = { ...triggers.raw };
  for (const imp of imports) {
    const io = imp.file.data.on;
    if (!io || typeof io !== "object") continue;
    for (const [k, v] of Object.entries(io as Record<string, unknown>)) {
      if (/^skip-|^github-app$|^github-token$/.test(k) && rawOn[k] === undefined) rawOn[k] = v;
    }
  }
  const roles = rawOn.roles === "all"
    ? undefined
    : rawOn.roles
    ? (Array.isArray(rawOn.roles) ? rawOn.roles.map(String) : [String(rawOn.roles)])
    : ["admin", "maintainer", "write"];
  const needsRoleCheck = roles !== undefined &&
    (rawOn.roles !== undefined || triggers.events.some((e) => !SAFE_EVENTS.includes(e)) ||
      // gh-aw counts `status-comment` as a (non-safe) event key of `on:`
      rawOn["status-comment"] !== undefined ||
      !!triggers.slashCommand || !!triggers.labelCommand);
  const stopTime = resolveStopTime(rawOn["stop-after"], o.now, await o.read(lockPath));
  const skipIfMatch = rawOn["skip-if-match"] === undefined
    ? undefined
    : typeof rawOn["skip-if-match"] === "string"
    ? { query: rawOn["skip-if-match"] as string }
    : rawOn["skip-if-match"] as { query: string; max?: number };
  const skipIfNoMatch = rawOn["skip-if-no-match"] === undefined
    ? undefined
    : typeof rawOn["skip-if-no-match"] === "string"
    ? { query: rawOn["skip-if-no-match"] as string }
    : rawOn["skip-if-no-match"] as { query: string; min?: number };
  const commands = triggers.slashCommand ? triggers.slashCommand.names : undefined;
  const prOn = rawOn.pull_request as Record<string, unknown> | null | undefined;
  const prLabelNames = prOn && typeof prOn === "object" && prOn.names !== undefined
    ? (Array.isArray(prOn.names) ? prOn.names : [prOn.names]).map(String)
    : undefined;
  const rawJobs = (data.jobs && typeof data.jobs === "object" ? data.jobs : {}) as Record<
    string,
    Record<string, unknown>
  >;
  const preExtras = preActivationExtras(rawJobs);
  const onSteps = await pinSteps([...(Array.isArray(rawOn.steps) ? rawOn.steps : []), ...preExtras.steps]);
  const otherGates =
    ["skip-roles", "skip-bots", "skip-author-associations", "skip-if-check-failing"].some((k) =>
      rawOn[k] !== undefined
    ) || data["user-rate-limit"] !== undefined || data["rate-limit"] !== undefined;
  const hasPre = needsRoleCheck || !!stopTime || !!skipIfMatch || !!skipIfNoMatch || !!commands ||
    onSteps.length > 0 || otherGates;

  const jobs: Record<string, JobPlan> = {};
  if (hasPre) {
    const perms: Record<string, string> = {
      contents: "read",
      ...((rawOn.permissions ?? {}) as Record<string, string>),
    };
    jobs.pre_activation = preActivationJob({
      ctx,
      roles,
      stopTime,
      skipIfMatch,
      skipIfNoMatch,
      commands,
      extraSteps: onSteps,
      extraOutputs: {
        // on.steps with an id expose their outcome; jobs.pre-activation outputs are merged in.
        ...Object.fromEntries(
          (Array.isArray(rawOn.steps) ? rawOn.steps as Record<string, unknown>[] : [])
            .filter((st) => typeof st?.id === "string")
            .map((st) => [`${st.id}_result`, toY(`\${{ steps.${st.id}.outcome }}`)]),
        ),
        ...Object.fromEntries(Object.entries(preExtras.outputs).map(([k, v]) => [k, toY(v)])),
      },
      permissions: sortRecord(perms),
      ifCondition: commands && !triggers.slashCommand?.centralized
        ? slashCondition(commands)
        : triggers.labelCommand?.decentralized
        ? labelRouteCondition(triggers.labelCommand.names, triggers.labelCommand.events)
        : eventCondition(
          // A frontmatter `if:` that reads job outputs cannot gate the job producing them.
          typeof data.if === "string" && !/\bneeds\./.test(data.if) ? stripExpr(data.if) : undefined,
          triggers.events.includes("pull_request"),
          prLabelNames,
        ),
    });
  }
  // Runtime imports: every import, then `{{#runtime-import …}}` macros of the main body, then the body.
  const bodyMacros = [...file.split.body.matchAll(/^\{\{#runtime-import\s+([^}\s]+)\s*\}\}/gm)]
    .map((m) => m[1].startsWith(".github/") ? m[1] : posix.normalize(posix.join(".github/workflows", m[1])));
  const runtimeImports = [
    ...imports.filter((i) => !i.path.startsWith(".github/agents/") && Object.keys(i.inputs).length > 0).map((
      i,
    ) => ({
      inline: i.file.split.body.trim().replace(
        /\$\{\{\s*([^}]+?)\s*\}\}/g,
        (_all, e: string) => `__${exprEnvName(e)}__`,
      ),
    })),
    ...imports.filter((i) => Object.keys(i.inputs).length === 0).map(
      (i) => i.path,
    ),
    ...bodyMacros,
    o.source,
  ].filter((v, i, arr) => typeof v !== "string" ? v.inline !== "" : arr.indexOf(v) === i);
  const inlined = data["inlined-imports"] === true;
  // Custom jobs the prompt or the `if:` reads decide what `activation` waits for (as gh-aw orders them).
  const promptText = [...imports.map((i) => i.file.split.body), file.split.body].join("\n");
  const beforeActivation = jobsBeforeActivation(rawJobs, promptText);
  const ifReadsCustomJobs = typeof data.if === "string" && referencedCustomJobs(data.if, rawJobs).length > 0;
  const activationIf = typeof data.if === "string" && (!ifReadsCustomJobs || beforeActivation.length > 0)
    ? stripExpr(data.if)
    : undefined;
  // Expressions of jobs that run after activation cannot be substituted into the prompt.
  const lateJobs = customJobNames(rawJobs).filter((n) => !beforeActivation.includes(n));
  // With a dispatch `item_number` input, entity numbers fall back to it (the env names stay).
  const wdInputs = ((triggers.on.workflow_dispatch ?? {}) as Record<string, unknown>).inputs as
    | Record<string, unknown>
    | undefined;
  const itemFallback = wdInputs?.item_number !== undefined;
  const bodyExprs = new Map(
    [...bodyExpressions([...imports.map((i) => i.file.split.body), file.split.body])]
      .filter(([, e]) => !lateJobs.some((n) => e.includes(`needs.${n}.`)))
      .map(([k, e]) =>
        [
          k,
          itemFallback && /^github\.event\.(pull_request|issue|discussion)\.number$/.test(e)
            ? `${e} || inputs.item_number`
            : e,
        ] as [string, string]
      ),
  );
  jobs.activation = activationJob({
    beforeJobs: beforeActivation,
    ctx,
    frontmatterHash,
    hasPreActivation: hasPre,
    ifCondition: triggers.labelCommand?.decentralized
      ? labelRouteCondition(triggers.labelCommand.names, triggers.labelCommand.events)
      : activationIf,
    engineDisplay: engine.info.displayName,
    engineModel: engine.model ?? engine.info.defaultModel,
    experimental: engine.info.experimental,
    staged: safeOutputs.staged,
    secrets: engine.secrets,
    validateName: engine.info.validateName,
    docs: engine.info.docs,
    allowedDomainsInfo: network.declared,
    safeOutputTools: safeOutputs.tools,
    autoCreateIssue: safeOutputs.autoCreateIssue ?? !safeOutputs.configured,
    runtimeImports,
    bodyExprs,
    permissions: { actions: "read", contents: "read" },
    emoji: typeof data.emoji === "string" ? data.emoji : undefined,
    strict: data.strict !== false,
    promptFragments: [
      ...(merged.tools.playwright !== undefined && merged.tools.playwright !== false
        ? ["playwright_prompt.md"]
        : []),
      ...(merged.tools["agentic-workflows"] !== undefined && merged.tools["agentic-workflows"] !== false
        ? ["agentic_workflows_guide.md"]
        : []),
      ...memoryFragment(merged.tools["cache-memory"], "cache_memory_prompt"),
      ...memoryFragment(merged.tools["repo-memory"], "repo_memory_prompt"),
    ],
    safeOutputFragments: [
      ...(safeOutputs.types.includes("create-pull-request") ? ["safe_outputs_create_pull_request.md"] : []),
      ...(safeOutputs.types.includes("push-to-pull-request-branch")
        ? ["safe_outputs_push_to_pr_branch.md"]
        : []),
      ...(safeOutputs.types.includes("comment-memory") || merged.tools["comment-memory"]
        ? ["safe_outputs_comment_memory.md"]
        : []),
    ],
    cliProxy: (data.features as Record<string, unknown> | undefined)?.["cli-proxy"] === true ||
      (merged.tools.github as Record<string, unknown> | undefined)?.mode === "gh-proxy",
    repoMemory: merged.tools["repo-memory"] && typeof merged.tools["repo-memory"] === "object" &&
        !Array.isArray(merged.tools["repo-memory"])
      ? merged.tools["repo-memory"] as Record<string, unknown>
      : merged.tools["repo-memory"] === true || merged.tools["repo-memory"] === null
      ? {}
      : undefined,
    commands,
    forkGuard: triggers.events.includes("pull_request"),
    routerDispatch: !!triggers.slashCommand?.centralized ||
      (!!triggers.labelCommand && triggers.labelCommand.decentralized === false),
    labelNames: triggers.labelCommand?.decentralized ? undefined : prLabelNames,
    experiments: experimentsSpec(data.experiments),
    reaction: typeof rawOn.reaction === "string" || typeof rawOn.reaction === "number"
      ? (rawOn.reaction === "none" ? undefined : String(rawOn.reaction))
      : triggers.slashCommand || triggers.labelCommand
      ? "eyes"
      : undefined,
    activationEvents: [...new Set([...triggers.events, ...(triggers.slashCommand?.events ?? [])])],
    labelRemoval: triggers.labelCommand?.removeLabel
      ? { names: triggers.labelCommand.names, events: triggers.labelCommand.events }
      : undefined,
    githubToken: typeof rawOn["github-token"] === "string" ? rawOn["github-token"] : undefined,
    statusComment: rawOn["status-comment"] === true ||
      ((!!triggers.slashCommand || !!triggers.labelCommand) && rawOn["status-comment"] !== false),
    // gh-aw: the prompt reads the sanitized text, or the frontmatter `on:` names a content event.
    sanitize:
      /\$\{\{ (steps\.sanitized|needs\.activation)\.outputs\.(text|title|body) \}\}/.test(promptText) ||
      (!!data.on && typeof data.on === "object" && !Array.isArray(data.on) &&
        Object.keys(data.on).some((e) => CONTENT_EVENTS.includes(e))),
    messages: messagesJson(safeOutputs.raw.messages),
    // The text sanitizer allows what the safe-output handlers allow (agent allowlist + safe-outputs.allowed-domains).
    allowedDomains: [...new Set([...network.allowed, ...expandEcosystems(safeOutputs.allowedDomains ?? [])])]
      .sort(),
    // gh-aw: only when it adds the agent checkout itself (no checkout among the custom steps).
    prContext: hasContentsRead(data.permissions) && data.checkout !== false &&
      !JSON.stringify([...merged.preAgentSteps, ...(Array.isArray(data.steps) ? data.steps : [])]).includes(
        "actions/checkout",
      ) &&
      (triggers.events.some((e) =>
        ["issue_comment", "pull_request_review_comment", "pull_request_review"].includes(e)
      ) || !!triggers.slashCommand),
    checkouts: merged.checkout,
    cacheMemory: merged.tools["cache-memory"],
    repoMemoryList: isMultiMemory(merged.tools["repo-memory"]) ? merged.tools["repo-memory"] : undefined,
    prContextPushGuidance: safeOutputs.types.includes("push-to-pull-request-branch"),
    mcpCliServers: [
      // Infrastructure servers are always CLI-mounted; user-facing ones only with `tools.cli-proxy: true`.
      "safeoutputs",
      ...(data["mcp-scripts"] !== undefined || imports.some((i) => i.file.data["mcp-scripts"] !== undefined)
        ? ["mcpscripts"]
        : []),
      ...(merged.tools["cli-proxy"] === true
        ? [
          ...(merged.tools["agentic-workflows"] !== undefined ? ["agenticworkflows"] : []),
          ...Object.keys(merged.mcpServers),
          ...(merged.tools.serena !== undefined ? ["serena"] : []),
        ]
        : []),
    ].filter((v, i, arr) => arr.indexOf(v) === i).sort(),
    inlinedBody: inlined
      ? [...imports.map((i) => i.file.split.body.trim()), file.split.body.trim()].filter(Boolean).join("\n\n")
      : undefined,
  });
  const containers = applyContainerPins(
    mcpContainerImages({
      ctx,
      merged,
      frontmatter: data,
      github: merged.github,
      mcpServers: merged.mcpServers,
    }),
    // Digests recorded in actions-lock.json's `containers`, overridden by aw.json `container_pins`.
    { ...o.pins.lock.containers, ...(o.containerPins ?? {}) },
  );
  const checkouts = merged.checkout.map(checkoutWith);
  const workflowTargets = await readWorkflowTargets(safeOutputs, posix.dirname(o.source), o.read);
  applyWorkflowTargets(safeOutputs, workflowTargets);
  applyCommentMemory(safeOutputs, merged.tools["comment-memory"]);
  jobs.agent = agentJob({
    ctx,
    frontmatterHash,
    runsOn: toY(data["runs-on"] ?? "ubuntu-latest"),
    permissions: typeof data.permissions === "string"
      ? data.permissions
      : sortRecord((data.permissions ?? { contents: "read" }) as Record<string, string>),
    install: engine.info.install,
    engineDisplay: engine.info.displayName,
    engineEnv: engine.env,
    secrets: engine.secrets,
    usesCopilotRequests: engine.usesCopilotRequests,
    model: engine.model,
    maxTurns: engine.maxTurns,
    maxContinuations: engine.maxContinuations,
    timeoutMinutes: timeout,
    allowedDomains: network.allowed,
    blockedDomains: network.blocked,
    handlerConfig: safeOutputs.handlerConfig,
    allowedReferences: safeOutputs.allowedReferences,
    github: merged.github,
    mcpServers: merged.mcpServers,
    mcpRefs: merged.tools["agentic-workflows"] !== undefined && merged.tools["agentic-workflows"] !== false &&
        o.actionMode === "dev"
      ? {
        setupGo: await pinText("actions/setup-go", "v6.4.0"),
        buildx: await pinText("docker/setup-buildx-action", "v4.0.0"),
        buildPush: await pinText("docker/build-push-action", "v7.1.0"),
      }
      : undefined,
    // Undefined unless the workflow or an import declares `mcp-scripts` (then merged, the workflow winning).
    mcpScripts: data["mcp-scripts"] !== undefined || imports.some((i) =>
        i.file.data["mcp-scripts"] !== undefined
      )
      ? Object.assign(
        {},
        ...imports.map((i) => i.file.data["mcp-scripts"] ?? {}),
        data["mcp-scripts"] ?? {},
      ) as Record<string, Record<string, unknown>>
      : undefined,
    containers,
    customSteps: await pinSteps([...merged.preAgentSteps, ...(Array.isArray(data.steps) ? data.steps : [])]),
    checkouts,
    cacheSteps: await cacheSteps(data.cache, pinText),
    env: {},
    environment: data.environment !== undefined ? toY(data.environment) : undefined,
    runtimeSteps: await (async () => {
      const needs = detectRuntimes({
        steps: [...merged.preAgentSteps, ...(Array.isArray(data.steps) ? data.steps : [])],
        mcpServers: merged.mcpServers,
        runtimes: data.runtimes,
      });
      const pins: Record<string, string> = {};
      for (const n of needs) pins[n.def.action] = await pinText(n.def.action, n.def.actionVersion);
      return runtimeSetupSteps(needs, pins);
    })(),
    cacheRefs: ctx.cacheMemory
      ? {
        cache: await pinText("actions/cache", "v5.0.5"),
        cacheRestore: await pinText("actions/cache/restore", "v5.0.5"),
      }
      : undefined,
    frontmatter: data,
    merged,
    safeOutputs,
    engine,
    workflowTargets,
    concurrency: agentConcurrency(triggers, engine.info.id, data.concurrency),
    setupNodeRef: await pinText("actions/setup-node", "v6.4.0"),
  });
  if (safeOutputs.threatDetection) {
    // Every built-in engine reviews with its own CLI; an engine without one would fall back to the Copilot CLI.
    const own = DETECTION_ENGINES.includes(engine.info.id);
    const detector = own ? engine.info : ENGINES.copilot;
    jobs.detection = copilotDetectionJob({
      engine: detector.id as DetectionEngine,
      frontmatterHash,
      ctx,
      description: typeof data.description === "string" && data.description.trim() !== ""
        ? data.description.trimEnd()
        : "No description provided",
      setupNodeRef: await pinText("actions/setup-node", "v6.4.0"),
      model: own ? engine.model : undefined,
      // These engines install without lifecycle scripts in detection, as in the agent job.
      install: ["codex", "gemini", "opencode", "pi", "antigravity"].includes(detector.id)
        ? detector.agentInstall?.run ?? detector.install
        : detector.install,
    });
  }
  jobs.safe_outputs = safeOutputsJob(
    ctx,
    safeOutputs,
    network.allowed,
    typeof data.emoji === "string" ? data.emoji : undefined,
    undefined,
    (() => {
      // The workflow's own checkout (no other repository) sets the depth of the code-push checkouts.
      const own = merged.checkout.find((c) => c.repository === undefined && (c.path ?? "") === "");
      return typeof own?.["fetch-depth"] === "number" ? own["fetch-depth"] as number : undefined;
    })(),
  );
  const conclusionExtra: string[] = [];
  // Custom safe-output jobs (safe-outputs.jobs, imports merged).
  const safeJobsRaw =
    (safeOutputs.raw.jobs && typeof safeOutputs.raw.jobs === "object" ? safeOutputs.raw.jobs : {}) as Record<
      string,
      Record<string, unknown>
    >;
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
      steps: await pinSteps(raw.steps),
      threatDetection: safeOutputs.threatDetection,
      download: ctx.refs.download,
      toY,
    });
    conclusionExtra.push(name);
  }
  // Without threat detection the agent's own actions/cache step saves the memory; no separate job is needed.
  if (ctx.cacheMemory && safeOutputs.threatDetection) {
    jobs.update_cache_memory = updateCacheMemoryJob(
      ctx,
      safeOutputs.threatDetection,
      await pinText("actions/cache/save", "v5.0.5"),
      (() => {
        const c = merged.tools["cache-memory"];
        return c && typeof c === "object" && !Array.isArray(c) &&
            typeof (c as Record<string, unknown>).key === "string"
          ? (c as Record<string, string>).key
          : undefined;
      })(),
    );
    conclusionExtra.push("update_cache_memory");
  }
  if (safeOutputs.handlerConfig.upload_asset && !safeOutputs.staged) {
    jobs.upload_assets = uploadAssetsJob(ctx, safeOutputs.handlerConfig.upload_asset);
    conclusionExtra.push("upload_assets");
  }
  if (data.experiments && typeof data.experiments === "object") {
    jobs.push_experiments_state = pushExperimentsStateJob(ctx);
    conclusionExtra.push("push_experiments_state");
  }
  const repoMemory = merged.tools["repo-memory"];
  if (repoMemory !== undefined && repoMemory !== false && !Array.isArray(repoMemory)) {
    jobs.push_repo_memory = pushRepoMemoryJob(
      ctx,
      safeOutputs.threatDetection,
      repoMemory && typeof repoMemory === "object" ? repoMemory as Record<string, unknown> : {},
    );
    conclusionExtra.push("push_repo_memory");
  }
  conclusionExtra.push(...customJobNames(rawJobs));
  jobs.conclusion = conclusionJob(
    ctx,
    safeOutputs,
    timeout,
    conclusionExtra,
    network.engineApiHosts,
    engine.secrets.length > 0,
  );
  // Custom jobs.
  for (const jobName of customJobNames(rawJobs)) {
    const raw = rawJobs[jobName];
    const job = customJob({
      raw,
      steps: await pinSteps(raw.steps),
      beforeActivation: beforeActivation.includes(jobName),
      toY,
    });
    if (typeof raw["runs-on"] === "string" && /^macos/i.test(raw["runs-on"])) {
      const [line, column] = file.locate(["jobs", jobName, "runs-on"]);
      diagnostics.push(
        diagnostic(
          "macos-runner",
          { file: o.source, line, column },
          `job ${jobName} uses macOS runner "${raw["runs-on"]}", which is not supported`,
        ),
      );
    }
    jobs[jobName] = job;
  }
  // Validate safe-outputs.needs names.
  for (const n of safeOutputs.needs) {
    if (!jobs[n]) {
      const [line, column] = file.locate(["safe-outputs", "needs"]);
      diagnostics.push(
        diagnostic(
          "unknown-job",
          { file: o.source, line, column },
          `safe-outputs.needs names unknown job "${n}"`,
          `define it under \`jobs:\` (known: ${Object.keys(data.jobs ?? {}).join(", ") || "none"})`,
        ),
      );
    }
  }
  if (diagnostics.some((d) => d.severity === "error")) return result();

  const concurrency = concurrencyFor(data.concurrency, triggers, toY);
  const env: Record<string, YValue> = {};
  for (const [k, v] of Object.entries(merged.env)) env[k] = toY(v);
  Object.assign(env, otlpEnv(merged.otlpEndpoints, id, name, engine.info.id));
  const body = emitBody({
    name,
    on: triggers.on,
    concurrency,
    runName: typeof data["run-name"] === "string" ? data["run-name"] : name,
    env,
    jobs,
  });

  // Header.
  const secrets = [
    ...new Set(
      [...body.matchAll(/\$\{\{[^}]*\}\}/g)].flatMap((e) =>
        [...e[0].matchAll(/(?<![\w.])secrets\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1])
      ),
    ),
  ].sort();
  const actionLines = [
    ...new Set(
      [...body.matchAll(/uses: ([\w.-]+\/[\w./-]+@[0-9a-f]{40} # \S+(?: \(source \S+\))?)$/gm)].map((m) =>
        m[1]
      ),
    ),
  ].sort();
  const actions = [...new Map(actionLines.map((l) => {
    const m = /^(.+)@([0-9a-f]{40}) # (\S+)/.exec(l)!;
    return [m[1], { repo: m[1], sha: m[2], version: m[3] }];
  })).values()];
  const metadata: Record<string, unknown> = {
    schema_version: "v4",
    frontmatter_hash: frontmatterHash,
    body_hash: bodyHash,
  };
  if (stopTime) metadata.stop_time = stopTime;
  if (data.strict !== false) metadata.strict = true;
  metadata.agent_id = engine.info.id;
  if (engine.model) metadata.agent_model = engine.model;
  const containerEntries = containers.map((c) => {
    const [image, digest] = c.split("@");
    return digest ? { image, digest, pinned_image: c } : { image };
  }).sort((a, b) => (a.image < b.image ? -1 : 1));
  const manifest = { version: 1, secrets, actions, containers: containerEntries };
  const header = renderHeader({
    metadata,
    manifest,
    description: typeof data.description === "string" ? data.description : undefined,
    source: typeof data.source === "string" ? data.source : undefined,
    imports: headerImportOrder(imports),
    inlinedImports: inlined,
    envVars: Object.keys(data.env && typeof data.env === "object" ? data.env : {}).map((k) => ({
      key: k,
      origin: "(main workflow)",
    })),
    secrets,
    actions: actionLines,
    containers: [...containers].sort(),
    stopTime,
  });
  const lockContent = header.join("\n") + "\n\n" + body;
  return { ...result(), lockContent };
}

/** The version a lock or built-in pin records for `repo@sha`, if any. */
function versionOfSha(pins: PinResolver, repo: string, sha: string): string | undefined {
  const hit = Object.values(pins.lock.entries).find((e) => e.repo === repo && e.sha === sha);
  if (hit) return hit.version;
  const b = Object.entries(BUILTIN_PINS).find(([k, v]) => v === sha && k.startsWith(`${repo}@`));
  return b ? b[0].slice(repo.length + 1) : undefined;
}

/** The first `# Heading` line of a Markdown body (gh-aw does not skip code fences). */
export function firstHeading(body: string): string | undefined {
  for (const line of body.split("\n")) {
    const m = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

const CHECKOUT_INPUTS = [
  "repository",
  "ref",
  "path",
  "fetch-depth",
  "sparse-checkout",
  "submodules",
  "lfs",
  "token",
];

/** Maps a `checkout:` entry to `actions/checkout` inputs (lists become newline-separated text). */
function checkoutWith(c: Record<string, unknown>): Record<string, YValue> {
  const out: Record<string, YValue> = {};
  for (const [k0, v] of Object.entries(c)) {
    const k = k0 === "github-token" ? "token" : k0;
    if (!CHECKOUT_INPUTS.includes(k)) continue;
    out[k] = Array.isArray(v) ? lit(v.map(String).join("\n") + "\n") : toY(v);
  }
  return out;
}

const EXPERIMENT_KEYS = [
  "variants",
  "description",
  "hypothesis",
  "metric",
  "secondary_metrics",
  "guardrail_metrics",
  "min_samples",
  "weight",
  "issue",
  "start_date",
  "end_date",
  "analysis_type",
  "tags",
  "notify",
];

/** `experiments:` → names and the Go-style (HTML-escaped, struct-ordered) JSON the picker reads. */
function experimentsSpec(raw: unknown): { names: string[]; spec: string } | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, cfg] of Object.entries(raw as Record<string, unknown>)) {
    const c = Array.isArray(cfg)
      ? { variants: cfg }
      : cfg && typeof cfg === "object"
      ? cfg as Record<string, unknown>
      : {};
    const o: Record<string, unknown> = {};
    for (const k of EXPERIMENT_KEYS) if (c[k] !== undefined) o[k] = c[k];
    for (const k of Object.keys(c)) if (!EXPERIMENT_KEYS.includes(k)) o[k] = c[k];
    out[name] = o;
  }
  const spec = JSON.stringify(out).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
  return { names: Object.keys(out), spec };
}

/** The activation/pre-activation condition of a decentralized label command (routed via aw_context). */
function labelRouteCondition(names: string[], events: string[]): string {
  const aw = "fromJSON(github.event.inputs.aw_context || '{}')";
  const ev = (e: string) => `${aw}.event_type == '${e}'`;
  const lb = (n: string) => `${aw}.trigger_label == '${n}'`;
  if (events.length === 1 && names.length === 1) {
    return `${ev(events[0])} && ${lb(names[0])} || !(${ev(events[0])})`;
  }
  const e = events.length === 1 ? ev(events[0]) : `(${events.map(ev).join(" || ")})`;
  const n = names.length === 1 ? lb(names[0]) : `(${names.map(lb).join(" || ")})`;
  return `${e} && ${n} || ${events.map((x) => `(!(${ev(x)}))`).join(" && ")}`;
}

/** The memory prompt fragment (`_multi` for a list of memories). */
function memoryFragment(v: unknown, base: string): string[] {
  if (v === undefined || v === false) return [];
  return [isMultiMemory(v) ? `${base}_multi.md` : `${base}.md`];
}

/** A memory list other than a lone `default` entry gets gh-aw's multi-memory prompt. */
function isMultiMemory(v: unknown): v is Record<string, unknown>[] {
  if (!Array.isArray(v)) return false;
  return v.length > 1 ||
    (v.length === 1 && typeof v[0]?.id === "string" && v[0].id !== "default");
}

/** Workflow-level OpenTelemetry env for `observability.otlp`. */
function otlpEnv(
  endpoints: { url: string; headers: Record<string, string> }[],
  id: string,
  name: string,
  engineId: string,
): Record<string, YValue> {
  if (endpoints.length === 0) return {};
  const hdr = (e: { url: string; headers: Record<string, string> }) =>
    Object.entries(e.headers).map(([k, v]) =>
      `${/sentry/i.test(e.url) && k === "Authorization" ? "x-sentry-auth" : k}=${v}`
    )
      .join(",");
  const out: Record<string, YValue> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoints[0].url,
    OTEL_SERVICE_NAME: `gh-aw.${id}`,
    OTEL_RESOURCE_ATTRIBUTES: sq(
      `gh-aw.workflow.name=${name},gh-aw.repository=\${{ github.repository }},gh-aw.run.id=\${{ github.run_id }},github.run_id=\${{ github.run_id }},gh-aw.engine.id=${engineId}`,
    ),
  };
  if (hdr(endpoints[0])) out.OTEL_EXPORTER_OTLP_HEADERS = hdr(endpoints[0]);
  const all = endpoints.map(hdr).filter(Boolean).join(",");
  if (all) out.GH_AW_OTLP_ALL_HEADERS = all;
  out.GH_AW_OTLP_ENDPOINTS = sq(JSON.stringify(endpoints.map((e) => ({ url: e.url, headers: hdr(e) }))));
  return out;
}

function stripExpr(s: string): string {
  const m = /^\$\{\{\s*([\s\S]*?)\s*\}\}$/.exec(s.trim());
  return m ? m[1] : s.trim();
}

function sortRecord<T>(r: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(r).sort()) out[k] = r[k];
  return out;
}

/** Plain data → writer values (strings auto-quoted; multi-line strings as literal blocks). */
export function toY(v: unknown): YValue {
  if (v === undefined) return null;
  if (typeof v === "string") return v.includes("\n") ? lit(v) : v;
  if (Array.isArray(v)) return v.map(toY);
  if (v && typeof v === "object") {
    const out: Record<string, YValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toY(x);
    return out;
  }
  return v as YValue;
}

function slashCondition(names: string[]): string {
  const n = names[0];
  const m = (b: string) => `(startsWith(${b}, '/${n} ') || startsWith(${b}, '/${n}\\n') || ${b} == '/${n}')`;
  return [
    `(github.event_name == 'issues') && ${m("github.event.issue.body")}`,
    `(github.event_name == 'issue_comment') && ${m("github.event.comment.body")}`,
    `(github.event_name == 'pull_request') && ${m("github.event.pull_request.body")}`,
    `(github.event_name == 'pull_request_review_comment') && ${m("github.event.comment.body")}`,
    `(github.event_name == 'discussion') && ${m("github.event.discussion.body")}`,
    `(github.event_name == 'discussion_comment') && ${m("github.event.comment.body")}`,
    `!(github.event_name == 'issues' || github.event_name == 'issue_comment' || github.event_name == 'pull_request' || github.event_name == 'pull_request_review_comment' || github.event_name == 'discussion' || github.event_name == 'discussion_comment')`,
  ].map((c) => `(${c})`).join(" || ");
}

/** Resolves `stop-after` (absolute or `+Nd`-style relative), preserving the value of an existing lock. */
export function resolveStopTime(
  raw: unknown,
  now: Date,
  existingLock: string | undefined,
): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const prior = existingLock ? readLockMetadata(existingLock)?.stop_time : undefined;
  if (typeof prior === "string") return prior;
  const s = String(raw).trim();
  const fmt = (d: Date) => d.toISOString().slice(0, 19).replace("T", " ");
  const rel = /^\+((?:\d+(?:mo|w|d|h))+)$/.exec(s);
  if (rel) {
    const d = new Date(now.getTime());
    for (const m of rel[1].matchAll(/(\d+)(mo|w|d|h)/g)) {
      const n = +m[1];
      if (m[2] === "mo") d.setUTCMonth(d.getUTCMonth() + n);
      else if (m[2] === "w") d.setUTCDate(d.getUTCDate() + 7 * n);
      else if (m[2] === "d") d.setUTCDate(d.getUTCDate() + n);
      else d.setUTCHours(d.getUTCHours() + n);
    }
    return fmt(d);
  }
  const parsed = new Date(
    s.includes("T") || /\d{4}-\d{2}-\d{2} \d/.test(s)
      ? s.replace(" ", "T") + (s.endsWith("Z") ? "" : "Z")
      : s + " UTC",
  );
  return Number.isNaN(parsed.getTime()) ? undefined : fmt(parsed);
}

async function cacheSteps(
  raw: unknown,
  pinText: (r: string, v: string) => Promise<string>,
): Promise<StepPlan[]> {
  if (!raw) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  const out: StepPlan[] = [];
  for (const c of list as Record<string, unknown>[]) {
    out.push({
      name: "Cache",
      uses: plain(await pinText("actions/cache", "v5.0.5")),
      with: toY(c) as Record<string, YValue>,
    });
  }
  return out;
}

/** gh-aw adds checkout-dependent prompt sections only when the workflow can read repository contents. */
function hasContentsRead(permissions: unknown): boolean {
  if (permissions === undefined || permissions === null) return true;
  if (typeof permissions === "string") return permissions === "read-all" || permissions === "write-all";
  if (typeof permissions !== "object") return false;
  const p = permissions as Record<string, unknown>;
  return p.contents === "read" || p.contents === "write" || p.all === "read" || p.all === "write";
}
