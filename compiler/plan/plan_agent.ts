/** Planning of the `agent` job and the threat-detection job. */
import { posix } from "node:path";
import { agentConcurrency } from "./triggers.ts";
import type { EngineConfig } from "./engines/facts.ts";
import { mcpContainerImages } from "./mcp/github.ts";
import { agentJob } from "./jobs/agent.ts";
import { planRuntimes } from "./agent/runtime_plan.ts";
import { detectionJob } from "./jobs/detection.ts";
import { applyContainerPins } from "../source/container_pins.ts";
import { applyWorkflowTargets, readWorkflowTargets } from "./safe_outputs/dynamic_tools.ts";
import { resolveSafeOutputActions } from "./safe_outputs/custom_actions.ts";
import { applyCommentMemory } from "./safe_outputs/agent_steps.ts";
import { afterSectionRoundTrip, asTypedSteps } from "./user_steps.ts";
import { cacheSteps, checkoutWith, sortRecord, toSortedY, toY } from "./workflow_values.ts";
import { UnindentedSequences } from "../yaml/writer.ts";
import type { AgentInput } from "./agent/input.ts";
import { manifestMcpServers } from "./mcp/manifest_servers.ts";
import { targetOf } from "./steps.ts";
import { FIREWALL_ROLES } from "../source/sandbox.ts";
import { VERSIONS } from "../data/versions.ts";

import type { Planning } from "./planning.ts";

/** The agent's permissions plus `id-token: write` when the engine federates (it mints the OIDC token). */
function withFederation(permissions: Record<string, string>, engine: EngineConfig): Record<string, string> {
  return engine.auth ? { ...permissions, "id-token": "write" } : permissions;
}

/** Digests of the firewall's images (by role) of the workflow's AWF release, as `actions-lock.json` records them. */
function firewallDigests(
  ctx: Planning["ctx"],
  containers: Readonly<Record<string, { digest: string }>> | undefined,
): Record<string, string> | undefined {
  if (!containers) return undefined;
  const tag = ctx.firewall?.imageTag ?? VERSIONS.awfImageTag;
  const out: Record<string, string> = {};
  for (const role of FIREWALL_ROLES) {
    const d = containers[`ghcr.io/github/gh-aw-firewall/${role}:${tag}`]?.digest;
    if (d) out[role] = d;
  }
  return out;
}

/** The `agent` job; returns the container images it pulls (for the header). */
export async function planAgent(planning: Planning): Promise<string[]> {
  const { o, source, data, imports, merged, engine, safeOutputs, ctx, network, jobs, pinText, pinSteps } =
    planning;
  const { frontmatterHash, timeout, triggers } = planning;
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
  const workflowTargets = await readWorkflowTargets(safeOutputs, posix.dirname(source), o.read);
  applyWorkflowTargets(safeOutputs, workflowTargets);
  planning.workflowTargets = workflowTargets;
  safeOutputs.actions = await resolveSafeOutputActions(safeOutputs.global, o.pins.lock.entries, pinText);
  applyCommentMemory(safeOutputs, merged.tools["comment-memory"]);
  // gh-aw round-trips the workflow's own `steps:` section before merging the imported steps in (user_steps.ts).
  const rawSteps = [
    ...merged.preAgentSteps,
    ...afterSectionRoundTrip(data.steps ?? [], targetOf(ctx).jobs.agent.trimsQuotedLastScalar === true),
  ];
  const runtimes = await planRuntimes({
    rawSteps,
    // gh-aw marshals these without UseLiteralStyleIfMultiline (user_steps.ts).
    // gh-aw converts them to typed steps first (env values as strings, user_steps.ts).
    pinnedSteps: await pinSteps(asTypedSteps(rawSteps), "goccy-default"),
    mcpServers: merged.mcpServers,
    runtimes: data.runtimes,
    actionMode: o.actionMode,
    pinText,
  });
  const agentInput: AgentInput = {
    ctx,
    frontmatterHash,
    runsOn: toY(data["runs-on"] ?? "ubuntu-latest"),
    agentImport: imports.filter((i) => i.path.startsWith(".github/agents/")).map((i) => ({
      file: i.path,
      spec: i.spec,
    }))[0],
    permissions: typeof data.permissions === "string" ? data.permissions : sortRecord(
      withFederation(data.permissions ?? { contents: "read" }, engine),
    ),
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
    setupCliRef:
      merged.tools["agentic-workflows"] !== undefined && merged.tools["agentic-workflows"] !== false &&
        o.actionMode === "release" && targetOf(ctx).jobs.agent.gateway?.releaseInstallsGhAw
        ? await pinText(targetOf(ctx).setupCliAction, targetOf(ctx).version)
        : undefined,
    // Undefined unless the workflow or an import declares `mcp-scripts` (then merged, the workflow winning).
    mcpScripts:
      data["mcp-scripts"] !== undefined || imports.some((i) => i.frontmatter["mcp-scripts"] !== undefined)
        ? Object.assign(
          {},
          ...imports.map((i) => i.frontmatter["mcp-scripts"] ?? {}),
          data["mcp-scripts"] ?? {},
        )
        : undefined,
    containers,
    firewallDigests: firewallDigests(ctx, o.pins.lock.containers),
    workflowJobs: planning.rawJobs,
    customSteps: runtimes.customSteps,
    // gh-aw keeps these apart from `steps:`, with the same round trip of the section (user_steps.ts).
    preAgentSteps: await pinSteps(
      asTypedSteps(
        afterSectionRoundTrip(data["pre-agent-steps"] ?? []),
      ),
      "goccy-default",
    ),
    preSteps: await pinSteps(asTypedSteps(afterSectionRoundTrip(merged.preSteps)), "goccy-default"),
    // gh-aw round-trips this section as it does `steps:` (user_steps.ts).
    postSteps: await pinSteps(
      asTypedSteps(
        afterSectionRoundTrip(
          data["post-steps"] ?? [],
          targetOf(ctx).jobs.agent.trimsQuotedLastScalar === true,
        ),
      ),
      "goccy-default",
    ),
    checkouts,
    cacheSteps: await cacheSteps(data.cache, pinText),
    env: {},
    environment: data.environment !== undefined ? toY(data.environment) : undefined,
    services: data.services !== undefined ? new UnindentedSequences(toSortedY(data.services)) : undefined,
    runtimeSteps: runtimes.runtimeSteps,
    runtimeAfterCheckout: runtimes.afterCheckout,
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
  };
  jobs.agent = agentJob(agentInput);
  // Releases whose manifest names the MCP servers and their tools.
  const table = targetOf(ctx).emit.manifestMcpServers;
  if (table) planning.manifestMcpServers = manifestMcpServers(agentInput, table);
  return containers;
}

/** The threat-detection job, when safe outputs are reviewed. */
export async function planDetection(planning: Planning): Promise<void> {
  const { data, engine, safeOutputs, ctx, jobs, pinText, frontmatterHash } = planning;
  if (safeOutputs.threatDetection) {
    // Every engine reviews with its own CLI.
    jobs.detection = detectionJob({
      engine: engine.info.id,
      frontmatterHash,
      ctx,
      description: typeof data.description === "string" && data.description.trim() !== ""
        ? data.description.trimEnd()
        : "No description provided",
      setupNodeRef: await pinText("actions/setup-node", "v6.4.0"),
      model: engine.model,
      auth: engine.auth,
      byokEnv: engine.byok ? engine.env : undefined,
      firewallDigests: firewallDigests(ctx, planning.o.pins.lock.containers),
    });
  }
}
