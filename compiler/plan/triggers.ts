/**
 * `on:` processing (of the `OnSection` source/on_section.ts read, short texts already expanded): fuzzy
 * schedules (scattered), slash/label commands, the injected `aw_context` dispatch input, and the gh-aw-only
 * keys that are removed from (or commented out of) the emitted `on:`. How the result is written (sorting,
 * comments) lives in triggers_render.ts.
 */
import type { Diagnostic } from "../api.ts";
import type { Frontmatter } from "../source/schema.ts";
import { parseSchedule } from "./schedule.ts";
import { dq, writeYaml, type YValue } from "../yaml/writer.ts";
import { diagnostic } from "../source/diagnostics.ts";
import { AW_CONTEXT, COMMENTED, type ParsedSchedules, renderOn } from "./triggers_render.ts";
import { COMMAND_EVENT_IDS, type CommandEventId, githubEventOf } from "./jobs/command_conditions.ts";
import { objectOf } from "../source/values.ts";
import {
  type CommandTrigger,
  type Event,
  type EventFilters,
  itemNumberInput,
  type OnSection,
  type Triggers,
} from "../source/on_section.ts";

/** gh-aw keys removed entirely from the emitted `on:`. */
const REMOVED = [
  "slash_command",
  "command",
  "label_command",
  "stop-after",
  "reaction",
  "status-comment",
  "manual-approval",
  "github-token",
  "github-app",
  "needs",
  "bots",
  "labels",
  "allow-bot-authored-trigger-comment",
  "stale-check",
];

/** What trigger processing found. */
export interface TriggerInfo {
  /** The emitted `on:` value (keys sorted, comments in place). */
  on: Record<string, YValue>;
  /** A copy of `on:` as read (short forms expanded), including gh-aw keys. */
  raw: Triggers;
  /** Scattered/validated crons in order. */
  crons: string[];
  slashCommand?: {
    names: string[];
    /** The GitHub events the command listens on. */
    events: string[];
    /** The command's event identifiers (`pull_request_comment` kept apart from `issue_comment`). */
    ids: CommandEventId[];
    centralized: boolean;
    /** `on:` has triggers besides the command (events the command ignores then pass through). */
    hasOtherEvents: boolean;
  };
  labelCommand?: { names: string[]; events: string[]; removeLabel: boolean; decentralized?: boolean };
  events: string[];
}

const SLASH_EVENTS: Record<string, string[]> = {
  issues: ["opened", "edited", "reopened"],
  issue_comment: ["created", "edited"],
  pull_request: ["opened", "edited", "reopened"],
  pull_request_review_comment: ["created", "edited"],
  discussion: ["created", "edited"],
  discussion_comment: ["created", "edited"],
};

function asList(v: unknown): string[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
}

/** Adds `item_number` to the `workflow_dispatch` inputs (keeping a user-declared one). */
function withItemNumber(wd: Event | undefined): EventFilters {
  const o = wd ?? {};
  const inputs = o.inputs ?? {};
  if (inputs.item_number !== undefined) return o;
  return {
    ...o,
    inputs: {
      ...inputs,
      item_number: itemNumberInput("The number of the issue, pull request, or discussion"),
    },
  };
}

/** Where schedule errors are reported: the workflow file and a locator of frontmatter paths in it. */
interface ScheduleDiagnostics {
  file: string;
  locate: (path: (string | number)[]) => [number, number];
  diags: Diagnostic[];
}

/** The triggers GitHub sees: `raw` without the gh-aw keys (removed, or rendered as comments later). */
function githubTriggers(raw: Triggers): Triggers {
  const on: Triggers = {};
  for (const [key, value] of Object.entries(raw)) {
    if (REMOVED.includes(key) || COMMENTED[key]) continue;
    on[key] = value;
  }
  return on;
}

/**
 * Replaces `on.schedule` with validated crons (fuzzy ones scattered by `seed`); an invalid entry is
 * reported and dropped. Fuzzy schedules can always be run by hand too.
 */
function applySchedules(
  on: Triggers,
  schedule: unknown,
  seed: string,
  report: ScheduleDiagnostics,
): ParsedSchedules {
  const parsed: ParsedSchedules = { crons: [], friendly: [] };
  const items = typeof schedule === "string"
    ? [{ cron: schedule }]
    : Array.isArray(schedule)
    ? schedule.map((x) => (typeof x === "string" ? { cron: x } : objectOf(x)))
    : [];
  const entries: Record<string, unknown>[] = [];
  items.forEach((item, index) => {
    const result = parseSchedule(String(item.cron ?? ""), seed);
    if (result.kind === "error") {
      const [line, column] = report.locate(
        typeof schedule === "string" ? ["on", "schedule"] : ["on", "schedule", index, "cron"],
      );
      report.diags.push(
        diagnostic("invalid-schedule", { file: report.file, line, column }, result.message, result.hint),
      );
      return;
    }
    parsed.crons.push(result.cron);
    parsed.friendly.push(result.kind === "fuzzy" ? result.friendly : undefined);
    entries.push({ cron: result.cron });
  });
  on.schedule = entries;
  if (parsed.friendly.some((f) => f !== undefined)) on.workflow_dispatch = on.workflow_dispatch ?? null;
  return parsed;
}

/** The workflow id of a workflow file: its name without the `.md`. */
function workflowIdOf(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1).replace(/\.md$/, "");
}

/**
 * Reads `slash_command` (or its old name `command`) and adds its triggers: a centralized command is
 * routed through `workflow_dispatch`, otherwise the comment and body events it listens to.
 */
function applySlashCommand(
  raw: Triggers,
  o: CommandTrigger | undefined,
  on: Triggers,
  file: string,
): TriggerInfo["slashCommand"] {
  if (o === undefined) return undefined;
  const ids = o.events === undefined || asList(o.events).includes("*")
    ? COMMAND_EVENT_IDS
    : asList(o.events).filter((e): e is CommandEventId => COMMAND_EVENT_IDS.includes(e as CommandEventId));
  const events: string[] = ids.map(githubEventOf);
  const centralized = o.strategy === "centralized";
  // gh-aw counts every other `on:` key (roles, workflow_dispatch…) as another event.
  const hasOtherEvents = Object.keys(raw).some((k) =>
    !["slash_command", "command", "reaction", "status-comment", "stop-after"].includes(k)
  );
  const slashCommand = {
    // Without a `name`, the command is the workflow's id (its file name), as gh-aw names it.
    names: o.name === undefined || o.name === null ? [workflowIdOf(file)] : asList(o.name),
    events: [...new Set(events)],
    ids,
    centralized,
    hasOtherEvents,
  };
  if (centralized) {
    on.workflow_dispatch = on.workflow_dispatch ?? null;
  } else {
    for (const event of Object.keys(SLASH_EVENTS)) {
      if (slashCommand.events.includes(event)) on[event] = { types: SLASH_EVENTS[event] };
    }
  }
  return slashCommand;
}

/**
 * Reads `label_command` and adds its `labeled` triggers (unless decentralized) and a dispatch trigger
 * taking the `item_number` to work on.
 */
function applyLabelCommand(
  o: CommandTrigger | undefined,
  on: Triggers,
  hasSlashCommand: boolean,
): TriggerInfo["labelCommand"] {
  if (o === undefined) return undefined;
  const events = o.events ? asList(o.events) : ["issues", "pull_request", "discussion"];
  const decentralized = o.strategy === "decentralized";
  if (!decentralized) { for (const event of events) on[event] = { types: ["labeled"] }; }
  // With a slash command too, the dispatch trigger is the command router's (no item_number).
  on.workflow_dispatch = hasSlashCommand
    ? on.workflow_dispatch ?? null
    : withItemNumber(on.workflow_dispatch);
  return { names: asList(o.name ?? o.names), events, removeLabel: o.remove_label !== false, decentralized };
}

/**
 * Adds gh-aw's `aw_context` input to a `workflow_dispatch` or `workflow_call` trigger (a declared one is
 * kept): a dispatching or calling workflow passes its context through it.
 */
function addAwContextInput(on: Triggers): void {
  for (const event of ["workflow_dispatch", "workflow_call"] as const) {
    if (!(event in on)) continue;
    const trigger = on[event] ?? {};
    on[event] = { ...trigger, inputs: { aw_context: AW_CONTEXT, ...trigger.inputs } };
  }
}

/** Processes `on:` (as read by source/on_section.ts); `seed` is the scattering seed. */
export function processTriggers(
  section: OnSection,
  seed: string,
  file: string,
  locate: (p: (string | number)[]) => [number, number],
  diags: Diagnostic[],
): TriggerInfo {
  const raw: Triggers = { ...section.triggers };
  const on = githubTriggers(raw);
  // Each step adds its triggers to `on` in turn; `events` keeps that insertion order.
  const schedules = raw.schedule === undefined
    ? { crons: [], friendly: [] }
    : applySchedules(on, raw.schedule, seed, { file, locate, diags });
  const slashCommand = applySlashCommand(raw, section.slashCommand, on, file);
  const labelCommand = applyLabelCommand(section.labelCommand, on, slashCommand !== undefined);
  addAwContextInput(on);
  const rendered = renderOn(on, raw, schedules);
  return { on: rendered, raw, crons: schedules.crons, slashCommand, labelCommand, events: Object.keys(on) };
}

/**
 * The workflow-level `concurrency:` gh-aw writes: the user's (without `job-discriminator`), else a group
 * keyed by the triggering entity. Like gh-aw, event kinds are found by substring in the rendered `on:`
 * text (comments and input names included), command workflows key on the issue/PR number, and PR
 * workflows cancel superseded runs.
 */
export function concurrencyFor(
  user: Frontmatter["concurrency"],
  t: TriggerInfo,
  toY: (v: unknown) => YValue,
): Record<string, YValue> {
  if (typeof user === "string") return { group: user };
  if (user !== undefined) {
    const u: Record<string, unknown> = { ...user };
    delete u["job-discriminator"];
    if (Object.keys(u).length > 0) {
      const out: Record<string, YValue> = {};
      for (const k of Object.keys(u).sort()) out[k] = toY(u[k]);
      return out;
    }
  }
  const on = writeYaml(t.on, 1, { indentSequences: false }).join("\n");
  const item = objectOf(objectOf(t.on.workflow_dispatch).inputs).item_number !== undefined;
  const isCommand = !!t.slashCommand || !!t.labelCommand;
  const pr = on.includes("pull_request");
  const issue = on.includes("issues") || on.includes("issue_comment");
  const disc = on.includes("discussion");
  const key = (primary: string[], tail: string[]) =>
    `\${{ ${[...primary, ...(item ? ["inputs.item_number"] : []), ...tail].join(" || ")} }}`;
  const keys = ["gh-aw", "${{ github.workflow }}"];
  if (isCommand) {
    keys.push("${{ github.event.issue.number || github.event.pull_request.number || github.run_id }}");
  } else if (pr && issue) {
    keys.push(key(["github.event.issue.number", "github.event.pull_request.number"], ["github.run_id"]));
  } else if (pr && disc) {
    keys.push(key(["github.event.pull_request.number", "github.event.discussion.number"], ["github.run_id"]));
  } else if (issue && disc) {
    keys.push(key(["github.event.issue.number", "github.event.discussion.number"], ["github.run_id"]));
  } else if (pr) keys.push(key(["github.event.pull_request.number"], ["github.ref", "github.run_id"]));
  else if (issue) keys.push(key(["github.event.issue.number"], ["github.run_id"]));
  else if (disc) keys.push(key(["github.event.discussion.number"], ["github.run_id"]));
  else if (on.includes("push")) keys.push("${{ github.ref || github.run_id }}");
  if (item) keys.push("${{ github.event.label.name || github.run_id }}");
  const out: Record<string, YValue> = { group: dq(keys.join("-")) };
  if (!isCommand && pr) out["cancel-in-progress"] = true;
  return out;
}

/** Triggers other than a manual dispatch (a `name:` key in the rendered `on:` text means the event is there). */
const NON_DISPATCH = [
  "push",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "pull_request_target",
  "issues",
  "issue_comment",
  "discussion",
  "discussion_comment",
  "schedule",
  "repository_dispatch",
  "workflow_run",
  "create",
  "delete",
  "release",
  "deployment",
  "fork",
  "gollum",
  "label",
  "milestone",
  "page_build",
  "public",
  "registry_package",
  "status",
  "watch",
  "merge_group",
  "check_run",
  "check_suite",
  "slash_command",
];

/**
 * The agent job's default `concurrency:` (gh-aw queues runs of one engine per workflow) — only for
 * workflows without entity or push triggers that are not dispatch-only; `job-discriminator` splits it.
 */
export function agentConcurrency(
  t: TriggerInfo,
  engineId: string,
  user: Frontmatter["concurrency"],
): Record<string, YValue> | undefined {
  const on = writeYaml(t.on, 1, { indentSequences: false }).join("\n");
  if (
    ["issues", "issue_comment", "pull_request", "discussion", "push", "slash_command"].some((e) =>
      on.includes(e)
    )
  ) {
    return undefined;
  }
  const dispatchOnly = on.includes("workflow_dispatch") && !NON_DISPATCH.some((e) => on.includes(`${e}:`));
  if (dispatchOnly) return undefined;
  const disc = typeof user === "string" ? undefined : user?.["job-discriminator"];
  return {
    group: dq(`gh-aw-${engineId}-\${{ github.workflow }}${disc !== undefined ? `-${disc}` : ""}`),
    queue: "max",
  };
}
