/**
 * Stage 5 — emit: the whole lock text of a {@link WorkflowPlan}. The header's secrets and actions are
 * collected from the plan's values (every `${{ … }}` expression and every `uses:` reference), not from the
 * rendered YAML.
 */
import { applyEmitStyle } from "./target_style.ts";
import type { WorkflowPlan } from "../plan/types.ts";
import { BlankLine, Comment, Commented, needsQuotes, Styled, type YValue } from "../yaml/writer.ts";
import { emitBody } from "./emit.ts";
import { renderHeader } from "./header.ts";
import { objectOf } from "../source/values.ts";

/** Renders the lock file of a plan: header, blank line, body. */
export function emitLock(plan: WorkflowPlan): string {
  const body = emitBody({
    name: plan.name,
    on: plan.on,
    concurrency: plan.concurrency,
    runName: plan.runName,
    env: plan.env,
    jobs: plan.jobs,
    cacheNote: plan.cacheNote,
    indentOnSequences: plan.emitStyle?.indentOnSequences,
  });
  return applyEmitStyle(renderHeader(headerInput(plan)).join("\n") + "\n\n" + body, plan.emitStyle);
}

/** The secrets and pinned actions the plan references. */
export function planReferences(plan: WorkflowPlan): { secrets: string[]; actionLines: string[] } {
  const secrets = new Set<string>();
  const actions = new Set<string>();
  const scanText = (text: string) => {
    // Most strings hold no secret reference; the substring test spares them the regular expressions.
    if (!text.includes("secrets.")) return;
    // An expression may hold braces of its own (`format('…{0}…', …)`): it ends at the first `}}`.
    for (const e of text.matchAll(/\$\{\{[\s\S]*?\}\}/g)) {
      for (const m of e[0].matchAll(/(?<![\w.-])secrets\.([A-Za-z_][A-Za-z0-9_]*)/g)) secrets.add(m[1]);
    }
  };
  const visit = (v: unknown, key?: string) => {
    if (typeof v === "string") {
      scanText(v);
      // A `uses:` written plain (as pinned references are) names a pinned action.
      if (key === "uses" && !needsQuotes(v)) addAction(v);
    } else if (v instanceof Styled) {
      scanText(v.value);
      if (key === "uses" && v.style === "plain") addAction(v.value);
    } else if (v instanceof Commented) {
      scanText(v.key);
      visit(v.value);
    } else if (v instanceof Comment) {
      scanText(v.text);
    } else if (v instanceof BlankLine || v === null || typeof v !== "object") {
      return;
    } else if (Array.isArray(v)) {
      for (const item of v) visit(item);
    } else {
      for (const [k, item] of Object.entries(objectOf(v))) {
        scanText(k);
        visit(item, k);
      }
    }
  };
  const addAction = (ref: string) => {
    const m = /^([\w.-]+\/[\w./-]+@[0-9a-f]{40} # \S+(?: \(source \S+\))?)$/.exec(ref);
    if (m) actions.add(m[1]);
  };
  visit(plan.name);
  visit(plan.on);
  visit(plan.concurrency);
  visit(plan.runName);
  visit(plan.env);
  visit(plan.jobs as unknown as YValue);
  return { secrets: [...secrets].sort(), actionLines: [...actions].sort() };
}

function headerInput(plan: WorkflowPlan) {
  const h = plan.header;
  const { secrets, actionLines } = planReferences(plan);
  // One entry per pinned commit: a repository pinned at two commits (a user's `@v4` beside gh-aw's own
  // checkout) is listed twice, as gh-aw does; one commit reached from two version tags, once. Sorted by
  // repository (`actions/cache` before `actions/cache/restore`), as gh-aw sorts.
  const actions = [...new Map(actionLines.map((l) => {
    const m = /^(.+)@([0-9a-f]{40}) # (\S+)/.exec(l)!;
    return [`${m[1]}@${m[2]}`, { repo: m[1], sha: m[2], version: m[3] }];
  })).values()].sort((a, b) => a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : 0);
  const metadata: Record<string, unknown> = {
    schema_version: "v4",
    frontmatter_hash: h.frontmatterHash,
    body_hash: h.bodyHash,
  };
  if (h.compilerVersion) metadata.compiler_version = h.compilerVersion;
  if (h.stopTime) metadata.stop_time = h.stopTime;
  if (h.strict) metadata.strict = true;
  metadata.agent_id = h.engineId;
  if (h.model) metadata.agent_model = h.model;
  if (h.engineVersions) metadata.engine_versions = h.engineVersions;
  const containerEntries = h.containers.map((c) => {
    const [image, digest] = c.split("@");
    return digest ? { image, digest, pinned_image: c } : { image };
  }).sort((a, b) => (a.image < b.image ? -1 : 1));
  return {
    metadata,
    manifest: {
      version: 1,
      secrets,
      actions,
      containers: containerEntries,
      ...(h.hasPullRequest ? { has_pull_request: true } : {}),
      ...(h.mcpServers ? { mcp_servers: h.mcpServers } : {}),
    },
    description: h.description,
    source: h.sourceRef,
    imports: h.imports,
    inlinedImports: h.inlinedImports,
    envVars: h.envKeys.map((key) => ({ key, origin: "(main workflow)" })),
    secrets,
    actions: actionLines,
    containers: [...h.containers].sort(),
    stopTime: h.stopTime,
    generatedBy: plan.emitStyle?.generatedLineFirst ? h.compilerVersion ?? "dev" : undefined,
  };
}
