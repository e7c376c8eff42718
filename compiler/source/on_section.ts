/**
 * The `on:` section read when the source is loaded: the short text forms (`on: daily`, `on: issues`,
 * `on: /fix`, `on: pull_request labeled bug`) read into the trigger mapping they stand for, a mapping kept as
 * written (the lock writes `on:` in the author's key order). The GitHub events are typed as trigger_syntax.ts
 * checks them (a file whose events break those rules is not planned); gh-aw's own keys (`slash_command`,
 * `stop-after`, `roles`, `skip-if-*`, …) are read by plan/triggers.ts and plan/plan_activation.ts.
 */
import { objectOf } from "./values.ts";

/** Text, or a list of texts (an event filter such as `types:` or `branches:`). */
export type TextOrTexts = string | string[];

/** One `inputs:`, `outputs:` or `secrets:` definition of a manual or reusable trigger: a mapping, or empty. */
export type TriggerDefinition = Record<string, unknown> | null;

/**
 * A GitHub event's filters (trigger_syntax.ts checks which filters each event takes, and that the lists are
 * texts); gh-aw adds `names`, `forks`, `draft` and `lock-for-agent`.
 */
export interface EventFilters {
  types?: TextOrTexts;
  branches?: TextOrTexts;
  "branches-ignore"?: TextOrTexts;
  paths?: TextOrTexts;
  "paths-ignore"?: TextOrTexts;
  tags?: TextOrTexts;
  "tags-ignore"?: TextOrTexts;
  workflows?: TextOrTexts;
  /** Label names (gh-aw: the labels whose `labeled` event starts the workflow). */
  names?: TextOrTexts;
  /** gh-aw: lock the triggering issue while the agent works (boolean_keys.ts checks it). */
  "lock-for-agent"?: boolean;
  /** gh-aw: `pull_request` from forks matching these patterns run too (`*`: all). */
  forks?: unknown;
  /** gh-aw: `deployment_status` states that start the workflow. */
  state?: unknown;
  /** `workflow_dispatch` and `workflow_call` inputs, by name (in the order written). */
  inputs?: Record<string, TriggerDefinition> | null;
  /** `workflow_call` outputs, by name. */
  outputs?: Record<string, TriggerDefinition> | null;
  /** `workflow_call` secrets, by name. */
  secrets?: Record<string, TriggerDefinition> | null;
  [filter: string]: unknown;
}

/** A GitHub event: empty (`push:`), or its filters. */
export type Event = EventFilters | null;

/**
 * The trigger mapping in the author's key order. The GitHub events the planners read are typed; every other
 * key of `ON_KEYS` (the gh-aw keys, read by the trigger and activation planners) is as written.
 */
export interface Triggers {
  push?: Event;
  pull_request?: Event;
  pull_request_target?: Event;
  issues?: Event;
  issue_comment?: Event;
  discussion?: Event;
  discussion_comment?: Event;
  workflow_dispatch?: Event;
  workflow_call?: Event;
  repository_dispatch?: Event;
  deployment_status?: Event;
  [key: string]: unknown;
}

/**
 * A command trigger (`slash_command`, `label_command`) in its mapping form: `slash_command: fix` reads as
 * `{name: fix}`, an empty one (or any other value) as `{}`. Its settings are as written; plan/triggers.ts
 * reads them as gh-aw does.
 */
export interface CommandTrigger {
  /** The command name(s); unset: the workflow's id (slash) or `names` (label). */
  name?: unknown;
  /** `label_command`: the label names. */
  names?: unknown;
  /** The events the command listens on (`*` for all). */
  events?: unknown;
  /** `centralized` (slash) or `decentralized` (label). */
  strategy?: unknown;
  /** `label_command`: whether the label is removed once read (default true). */
  remove_label?: unknown;
  [key: string]: unknown;
}

/** `on:` as the planner reads it. */
export interface OnSection {
  /** The text as written when `on:` is a short form (`on: daily`, `on: issues`, `on: /fix`); else unset. */
  shorthand?: string;
  /** The triggers: the mapping as written, or the one the short form stands for. */
  triggers: Triggers;
  /** `slash_command` (or its old name `command`, read when `slash_command` is unset or empty). */
  slashCommand?: CommandTrigger;
  /** `label_command`. */
  labelCommand?: CommandTrigger;
  /** `stop-after` as text (a number as its digits); unset when absent or empty. */
  stopAfter?: string;
  /** `reaction` as text (a number as its digits, `none` for none); unset when absent or of another kind. */
  reaction?: string;
  /** `roles`: `all`, or the roles that may run the workflow; unset (absent or empty) for gh-aw's default. */
  roles?: "all" | string[];
}

/** The `item_number` dispatch input gh-aw adds for label-driven workflows. */
export function itemNumberInput(description: string): Record<string, unknown> {
  return { default: "", description, required: false, type: "string" };
}

/** The trigger mapping a short `on:` text stands for, or undefined for a schedule (`daily`, a cron, …). */
export function expandOnString(s: string): Triggers | undefined {
  const t = s.trim();
  if (t.startsWith("/")) return { slash_command: { name: t.slice(1) }, workflow_dispatch: null };
  let m = /^label-command\s+(\S+)$/.exec(t);
  if (m) return { label_command: { name: m[1] } };
  m = /^(pull_request|issues|discussion)\s+labeled\s+(.+)$/.exec(t);
  if (m) {
    const what = { pull_request: "pull request", issues: "issue", discussion: "discussion" }[m[1]];
    return {
      [m[1]]: { types: ["labeled"], names: m[2].split(/[\s,]+/) },
      workflow_dispatch: { inputs: { item_number: itemNumberInput(`The number of the ${what}`) } },
    };
  }
  if (/^[a-z_]+$/.test(t) && !["daily", "weekly", "hourly", "biweekly"].includes(t)) return { [t]: null };
  return undefined;
}

/**
 * Reads `on:`: a short text into its trigger mapping (a schedule, such as `daily`, also runs by hand), a
 * mapping as written (a copy, keys in the author's order); anything else (a file `on:` never validated, as
 * a dispatch target's source) reads as no triggers.
 */
export function readOn(value: unknown): OnSection {
  const triggers: Triggers = typeof value !== "string"
    ? { ...objectOf(value) }
    : expandOnString(value) ?? { schedule: value, workflow_dispatch: null };
  const on: OnSection = typeof value === "string" ? { shorthand: value, triggers } : { triggers };
  // As gh-aw reads them: an empty `slash_command:` falls back to `command:`.
  const slash = triggers.slash_command ?? triggers.command;
  if (slash !== undefined) on.slashCommand = commandForm(slash);
  if (triggers.label_command !== undefined) on.labelCommand = commandForm(triggers.label_command);
  const { "stop-after": stopAfter, reaction, roles } = triggers;
  if (stopAfter !== undefined && stopAfter !== null) on.stopAfter = String(stopAfter);
  if (typeof reaction === "string" || typeof reaction === "number") on.reaction = String(reaction);
  if (roles === "all") on.roles = "all";
  else if (roles) on.roles = Array.isArray(roles) ? roles.map(String) : [String(roles)];
  return on;
}

/** A command trigger's mapping form: a name alone as `{name}`, a mapping as written, anything else `{}`. */
function commandForm(value: unknown): CommandTrigger {
  return typeof value === "string" ? { name: value } : objectOf(value);
}

/**
 * Whether the author's `on:` mapping names `event`, as gh-aw asks of the frontmatter as written: a short
 * form names none, and the events a slash or label command adds do not count.
 */
export function writtenEvent(on: OnSection, event: string): boolean {
  return on.shorthand === undefined && Object.hasOwn(on.triggers, event);
}
