/** Planning of the gates, `pre_activation` and `activation` (the prompt's inputs included). */
import { expandEcosystems } from "./network.ts";
import { activationJob } from "./jobs/activation.ts";
import { promptBody } from "./prompt_body.ts";
import {
  allForksAllowed,
  bothConditions,
  deploymentStateCondition,
  eventCondition,
} from "./jobs/conditions.ts";
import {
  commentAuthorGuard,
  labelCommandCondition,
  slashCommandCondition,
} from "./jobs/command_conditions.ts";
import { preActivationJob } from "./jobs/pre_activation.ts";
import { checksOutActionsFolder, targetOf } from "./steps.ts";
import {
  rateLimitConfig,
  skipAuthorAssociationsCondition,
  skipIfCheckFailingConfig,
  skipListOf,
} from "./jobs/pre_activation_checks.ts";
import {
  customJobNames,
  jobsBeforeActivation,
  preActivationExtras,
  referencedCustomJobs,
} from "./jobs/custom.ts";
import { messagesJson } from "./safe_outputs/messages.ts";
import { githubCliPrompt, githubToolConfig, type McpView } from "./mcp/github.ts";
import {
  experimentsSpec,
  hasContentsRead,
  isMultiMemory,
  labelRouteCondition,
  memoryFragment,
  resolveStopTime,
  sortRecord,
  stripExpr,
  toY,
} from "./workflow_values.ts";

import { locksForAgent } from "./jobs/unlock.ts";
import type { Gates, Planning } from "./planning.ts";
import { isMapping, type Mapping, mappingsOf, objectOf } from "../source/values.ts";
import { type OnSection, type Triggers, writtenEvent } from "../source/on_section.ts";

/**
 * Events that need no role check. Not `repository_dispatch`: anyone holding a token that can dispatch to the
 * repository can start it with a chosen `client_payload` (gh-aw v0.76's locks check roles for it too).
 */
const SAFE_EVENTS = [
  "schedule",
  "workflow_dispatch",
  "push",
  "merge_group",
  "create",
  "delete",
];

/** `on:` keys gh-aw leaves out when it asks whether only safe events start the workflow. */
const NON_EVENT_ON_KEYS = ["command", "stop-after", "reaction"];

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

/** The `on:` gates: who may run the workflow, until when, on which conditions. */
export async function activationGates(planning: Planning): Promise<Gates> {
  const { o, data, imports, triggers, lockPath, pinSteps } = planning;
  // gh-aw-only `on:` keys (skip-if-*, github-app…) may also come from imports; the main workflow wins.
  const rawOn: Triggers = { ...triggers.raw };
  for (const imp of imports) {
    for (const [k, v] of Object.entries(imp.frontmatter.on.triggers)) {
      if (/^skip-|^github-app$|^github-token$/.test(k) && rawOn[k] === undefined) rawOn[k] = v;
    }
  }
  const roles = data.on.roles === "all" ? undefined : data.on.roles ?? ["admin", "maintainer", "write"];
  // gh-aw reads every key of `on:` (with the skip-if-* of imports merged in) as an event, but `command`,
  // `stop-after` and `reaction`: any other gh-aw key (`roles`, `skip-if-*`, `status-comment`, `steps`…)
  // makes the workflow unsafe too.
  // Later releases no longer count a `roles` key that only repeats the default roles.
  const defaultRoles = roles !== undefined && [...roles].sort().join(",") === "admin,maintainer,write";
  const nonEventKeys = [
    ...NON_EVENT_ON_KEYS,
    ...(defaultRoles && targetOf(planning.ctx).jobs.defaultRolesNeedNoCheck ? ["roles"] : []),
  ];
  const needsRoleCheck = roles !== undefined &&
    (triggers.events.some((e) => !SAFE_EVENTS.includes(e)) ||
      Object.keys(rawOn).some((k) => !SAFE_EVENTS.includes(k) && !nonEventKeys.includes(k)) ||
      !!triggers.slashCommand || !!triggers.labelCommand);
  // The previous lock (large) is read only when a stop time may be carried over from it.
  const stopAfter = data.on.stopAfter;
  const stopTime = stopAfter === undefined
    ? undefined
    : resolveStopTime(stopAfter, o.now, await o.read(lockPath));
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
  const prOn = rawOn.pull_request;
  const prLabelNames = prOn?.names !== undefined
    ? (Array.isArray(prOn.names) ? prOn.names : [prOn.names]).map(String)
    : undefined;
  const rawJobs = planning.rawJobs;
  const preExtras = preActivationExtras(rawJobs);
  const onSteps = await pinSteps(
    [...(Array.isArray(rawOn.steps) ? rawOn.steps : []), ...preExtras.steps],
    "convert-step",
  );
  const rateLimit = rateLimitConfig(data, triggers.events);
  const skipIfCheckFailing = skipIfCheckFailingConfig(rawOn["skip-if-check-failing"]);
  const otherGates = ["skip-roles", "skip-bots", "skip-author-associations"].some((k) =>
    rawOn[k] !== undefined
  );
  const hasPre = needsRoleCheck || !!stopTime || !!skipIfMatch || !!skipIfNoMatch || !!commands ||
    onSteps.length > 0 || otherGates || !!rateLimit || !!skipIfCheckFailing;
  return {
    rawOn,
    roles,
    needsRoleCheck,
    rateLimit,
    skipIfCheckFailing,
    stopTime,
    commands,
    prLabelNames,
    rawJobs,
    hasPre,
    skipIfMatch,
    skipIfNoMatch,
    onSteps,
    preExtras,
  };
}

/** The `pre_activation` job. */
export function planPreActivation(planning: Planning, g: Gates): void {
  const { ctx, data, triggers, jobs } = planning;
  const { rawOn, roles, stopTime, commands, prLabelNames } = g;
  const { skipIfMatch, skipIfNoMatch, onSteps, preExtras } = g;
  const perms: Record<string, string> = {
    // The rate limit counts the user's recent runs of the workflow through the Actions API.
    ...(g.rateLimit ? { actions: "read" } : {}),
    // Later releases ask to read contents only to check out the actions folder.
    ...(!targetOf(ctx).jobs.preActivationContentsOnlyForCheckout || checksOutActionsFolder(ctx)
      ? { contents: "read" }
      : {}),
    ...objectOf<string>(rawOn.permissions),
  };
  jobs.pre_activation = preActivationJob({
    ctx,
    roles: g.needsRoleCheck ? roles : undefined,
    stopTime,
    skipIfMatch,
    skipIfNoMatch,
    skipIfCheckFailing: g.skipIfCheckFailing,
    skipRoles: skipListOf(rawOn["skip-roles"]),
    skipBots: skipListOf(rawOn["skip-bots"]),
    rateLimit: g.rateLimit,
    commands,
    extraSteps: onSteps,
    extraOutputs: {
      // on.steps with an id expose their outcome; jobs.pre-activation outputs are merged in.
      ...Object.fromEntries(
        mappingsOf(rawOn.steps)
          .filter((st) => typeof st?.id === "string")
          .map((st) => [`${st.id}_result`, toY(`\${{ steps.${st.id}.outcome }}`)]),
      ),
      ...Object.fromEntries(Object.entries(preExtras.outputs).map(([k, v]) => [k, toY(v)])),
    },
    permissions: sortRecord(perms),
    ifCondition: bothConditions(
      // gh-aw puts the skip-author-associations guard in front of the job's other conditions.
      skipAuthorAssociationsCondition(rawOn["skip-author-associations"]),
      triggers.labelCommand?.decentralized
        ? labelRouteCondition(triggers.labelCommand.names, triggers.labelCommand.events)
        : commandGate(
          triggers,
          // A frontmatter `if:` that reads job outputs cannot gate the job producing them.
          bothConditions(
            typeof data.if === "string" && !/\bneeds\./.test(data.if) ? stripExpr(data.if) : undefined,
            deploymentStateCondition(rawOn),
          ),
          prLabelNames,
          roles,
          targetOf(ctx).jobs.stackedPrGuard,
          targetOf(ctx).jobs.negateDisjunctionWhole,
        ),
    ),
  });
}

/** What the activation job's prompt step reads: runtime imports, substituted expressions, inlined body. */
function promptInputs(planning: Planning, g: Gates) {
  const { file, data, imports, triggers } = planning;
  const { rawJobs } = g;
  const inlined = data["inlined-imports"] === true;
  // Custom jobs the prompt or the `if:` reads decide what `activation` waits for (as gh-aw orders them).
  const promptText = [...imports.map((i) => i.file.split.body), file.split.body].join("\n");
  const beforeActivation = jobsBeforeActivation(rawJobs, promptText);
  const ifReadsCustomJobs = typeof data.if === "string" && referencedCustomJobs(data.if, rawJobs).length > 0;
  const activationIf = bothConditions(
    typeof data.if === "string" && (!ifReadsCustomJobs || beforeActivation.length > 0)
      ? stripExpr(data.if)
      : undefined,
    deploymentStateCondition(g.rawOn),
  );
  const wdInputs = objectOf(triggers.on.workflow_dispatch).inputs as Mapping | undefined;
  const body = promptBody(planning, {
    // Expressions of jobs that run after activation cannot be substituted into the prompt.
    lateJobs: customJobNames(rawJobs).filter((n) => !beforeActivation.includes(n)),
    itemFallback: wdInputs?.item_number !== undefined,
    experiments: experimentsSpec(data.experiments)?.names ?? [],
  });
  return { ...body, inlined, promptText, beforeActivation, activationIf };
}

/** The `activation` job: the prompt's runtime imports and expressions, reactions, status comment. */
export function planActivation(
  planning: Planning,
  g: Gates,
): { beforeActivation: string[]; inlined: boolean } {
  const { data, merged, triggers, engine, safeOutputs, ctx, network, jobs } = planning;
  const { frontmatterHash } = planning;
  const { rawOn, commands, prLabelNames, hasPre } = g;
  const {
    runtimeImports,
    inlined,
    promptText,
    beforeActivation,
    activationIf,
    bodyExprs,
    inlinedBody,
    inlinedPieces,
  } = promptInputs(
    planning,
    g,
  );
  jobs.activation = activationJob({
    beforeJobs: beforeActivation,
    ctx,
    frontmatterHash,
    hasPreActivation: hasPre,
    ifCondition: triggers.labelCommand?.decentralized
      ? labelRouteCondition(triggers.labelCommand.names, triggers.labelCommand.events)
      : commandCondition(triggers) !== undefined
      ? commandGate(
        triggers,
        activationIf,
        prLabelNames,
        undefined,
        false,
        targetOf(ctx).jobs.negateDisjunctionWhole,
      )
      : activationIf,
    engineDisplay: engine.info.displayName,
    engineModel: engine.model ?? engine.info.defaultModel,
    experimental: engine.info.experimental,
    staged: safeOutputs.staged,
    secrets: engine.secrets,
    validateName: engine.info.validateName,
    docs: engine.info.docs,
    // Later releases report the entries in the order the author wrote them.
    allowedDomainsInfo: targetOf(ctx).jobs.activation.domainsAsWritten
      ? network.declaredAsWritten
      : network.declared,
    safeOutputTools: safeOutputs.tools,
    autoCreateIssue: safeOutputs.autoCreateIssue ?? !safeOutputs.configured,
    runtimeImports,
    bodyExprs,
    permissions: { actions: "read", contents: "read" },
    emoji: typeof data.emoji === "string" ? data.emoji : undefined,
    strict: data.strict !== false,
    ...promptFragmentsOf(planning),
    ...githubPromptOf(planning),
    repoMemory: isMapping(merged.tools["repo-memory"])
      ? merged.tools["repo-memory"]
      : merged.tools["repo-memory"] === true || merged.tools["repo-memory"] === null
      ? {}
      : undefined,
    commands,
    // A command's own condition replaces the fork guard (as gh-aw): its role check gates fork authors.
    forkGuard: needsForkGuard(triggers) && commandCondition(triggers) === undefined,
    workflowRunGuard: triggers.events.includes("workflow_run"),
    // Only the slash-command router re-dispatches with the original event in `aw_context`: gh-aw's
    // reaction and comment guards read it for a centralized slash command, not for a label command.
    routerDispatch: !!triggers.slashCommand?.centralized,
    labelNames: triggers.labelCommand?.decentralized || commandCondition(triggers) !== undefined
      ? undefined
      : prLabelNames,
    experiments: experimentsSpec(data.experiments),
    reaction: reactionOf(data.on, triggers),
    activationEvents: [...new Set([...triggers.events, ...(triggers.slashCommand?.events ?? [])])],
    labelRemoval: triggers.labelCommand?.removeLabel
      ? { names: triggers.labelCommand.names, events: triggers.labelCommand.events }
      : undefined,
    githubToken: typeof rawOn["github-token"] === "string" ? rawOn["github-token"] : undefined,
    lockForAgent: locksForAgent(rawOn),
    noConfigCheckout: inlined && "workflow_call" in triggers.on,
    statusComment: rawOn["status-comment"] === true ||
      ((!!triggers.slashCommand || !!triggers.labelCommand) && rawOn["status-comment"] !== false),
    // gh-aw: the prompt reads the sanitized text, or the frontmatter `on:` names a content event.
    sanitize:
      /\$\{\{ (steps\.sanitized|needs\.activation)\.outputs\.(text|title|body) \}\}/.test(promptText) ||
      CONTENT_EVENTS.some((event) => writtenEvent(data.on, event)),
    messages: messagesJson(safeOutputs.global.messages),
    // The text sanitizer allows what the safe-output handlers allow (agent allowlist + safe-outputs.allowed-domains).
    allowedDomains: [...new Set([...network.allowed, ...expandEcosystems(safeOutputs.allowedDomains ?? [])])]
      .sort(),
    // gh-aw: only when it adds the agent checkout itself (no checkout among the custom steps).
    prContext: needsPrContext(planning),
    checkouts: merged.checkout,
    cacheMemory: merged.tools["cache-memory"],
    repoMemoryList: isMultiMemory(merged.tools["repo-memory"]) ? merged.tools["repo-memory"] : undefined,
    prContextPushGuidance: safeOutputs.types.includes("push-to-pull-request-branch"),
    mcpCliServers: mcpCliServersOf(planning),
    inlinedBody,
    inlinedPieces,
  });
  return { beforeActivation, inlined };
}

/**
 * The condition a command puts on its own triggers: a decentralized slash command's text match on the
 * events it was narrowed to, or a label command's label-name match; undefined without either.
 */
function commandCondition(triggers: Planning["triggers"], wholeNegation = false): string | undefined {
  const slash = triggers.slashCommand;
  if (slash && !slash.centralized) {
    return slashCommandCondition(slash.names, slash.ids, slash.hasOtherEvents, wholeNegation);
  }
  const label = triggers.labelCommand;
  if (label && !label.decentralized) {
    return labelCommandCondition(label.names, label.events, wholeNegation);
  }
  return undefined;
}

/**
 * A gating job's condition for a command workflow: the user's `if:`, the comment-author guard (pre-activation
 * only, given `roles`) and the command condition, combined as gh-aw combines conditions; without a command,
 * the usual event condition (user `if:`, fork guard, `pull_request.names` filter).
 */
/** Pull requests start the workflow and `forks: "*"` does not admit every fork. */
function needsForkGuard(triggers: Planning["triggers"]): boolean {
  return triggers.events.includes("pull_request") && !allForksAllowed(triggers.raw.pull_request);
}

function commandGate(
  triggers: Planning["triggers"],
  userIf: string | undefined,
  prLabelNames: string[] | undefined,
  roles?: string[],
  stackGuard = false,
  /** The target's `negateDisjunctionWhole`. */
  wholeNegation = false,
): string | undefined {
  const command = commandCondition(triggers, wholeNegation);
  if (command === undefined) {
    return eventCondition(userIf, needsForkGuard(triggers), prLabelNames, stackGuard);
  }
  const slash = triggers.slashCommand;
  const guard = slash && !slash.centralized ? commentAuthorGuard(roles, slash.ids) : undefined;
  return [userIf, guard, command].filter((c): c is string => !!c)
    .reduce<string | undefined>((acc, c) => (acc ? `(${acc}) && (${c})` : c), undefined);
}

/** The prompt fragments the tools and safe outputs add (Playwright, memories, code pushes…). */
function promptFragmentsOf(
  { merged, safeOutputs, ctx }: Planning,
): { promptFragments: string[]; safeOutputFragments: string[] } {
  const awGuide = !targetOf(ctx).jobs.agenticWorkflowsMcpOnly;
  return {
    promptFragments: [
      ...(merged.tools.playwright !== undefined && merged.tools.playwright !== false
        ? ["playwright_prompt.md"]
        : []),
      ...(awGuide && merged.tools["agentic-workflows"] !== undefined &&
          merged.tools["agentic-workflows"] !== false
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
  };
}

/** Whether the prompt has the GitHub context and which GitHub tool guidance it gets (none without the tool). */
function githubPromptOf({ ctx, data, merged }: Planning): { githubTool: boolean; cliProxy: boolean } {
  const view: McpView = {
    ctx,
    merged,
    frontmatter: data,
    github: merged.github,
    mcpServers: merged.mcpServers,
  };
  return { githubTool: githubToolConfig(view) !== undefined, cliProxy: githubCliPrompt(view) };
}

/** MCP servers mounted as CLIs (sorted): the infrastructure ones always, the user's with `tools.cli-proxy`. */
function mcpCliServersOf(planning: Planning): string[] {
  const { data, imports, merged } = planning;
  const all = targetOf(planning.ctx).jobs.mountAllMcpServers;
  const github = all && githubPromptOf(planning);
  return [
    // Infrastructure servers are always CLI-mounted; user-facing ones only with `tools.cli-proxy: true`.
    "safeoutputs",
    ...(data["mcp-scripts"] !== undefined || imports.some((i) => i.frontmatter["mcp-scripts"] !== undefined)
      ? ["mcpscripts"]
      : []),
    ...(github && github.githubTool && !github.cliProxy ? ["github"] : []),
    ...(merged.tools["cli-proxy"] === true || all
      ? [
        ...(merged.tools["agentic-workflows"] !== undefined &&
            !targetOf(planning.ctx).jobs.agenticWorkflowsMcpOnly
          ? ["agenticworkflows"]
          : []),
        ...Object.keys(merged.mcpServers),
        ...(merged.tools.serena !== undefined ? ["serena"] : []),
      ]
      : []),
  ].filter((v, i, arr) => arr.indexOf(v) === i).sort();
}

/**
 * Whether the prompt gets the PR context: the agent checkout is the compiler's own (no checkout among the
 * custom steps) and a PR-comment event or a slash command can trigger the run.
 */
function needsPrContext({ data, merged, triggers }: Planning): boolean {
  return hasContentsRead(data.permissions) && !merged.checkoutDisabled &&
    !JSON.stringify([...merged.preAgentSteps, ...(data.steps ?? [])]).includes(
      "actions/checkout",
    ) &&
    (triggers.events.some((e) =>
      ["issue_comment", "pull_request_review_comment", "pull_request_review"].includes(e)
    ) || !!triggers.slashCommand);
}

/** The reaction added to the triggering item: `on.reaction` (`none` for none), else 👀 for commands. */
function reactionOf(on: OnSection, triggers: Planning["triggers"]): string | undefined {
  return on.reaction !== undefined
    ? (on.reaction === "none" ? undefined : on.reaction)
    : triggers.slashCommand || triggers.labelCommand
    ? "eyes"
    : undefined;
}
