/**
 * Rendering of the processed `on:` as gh-aw writes it: keys sorted, friendly-format comments after
 * crons, gh-aw-only keys shown as comments, and the `aw_context` dispatch input listed first.
 * triggers.ts decides what `on:` holds; this module only decides how it reads.
 */
import { Comment, Commented, dq, lit, type YValue } from "../yaml/writer.ts";
import { WORKFLOW_RUN_ZIZMOR_NOTE } from "./jobs/conditions.ts";
import { isMapping, isObject, mappingsOf, objectOf } from "../source/values.ts";
import type { Triggers } from "../source/on_section.ts";

/** gh-aw keys shown as comments in the emitted `on:` (key → reason). */
export const COMMENTED: Record<string, string> = {
  permissions: "Permissions applied to pre-activation job",
  roles: "Roles processed as role check in pre-activation job",
  "skip-author-associations": "Skip-author-associations compiled into pre-activation job if condition",
  "skip-bots": "Skip-bots processed as bot check in pre-activation job",
  "skip-if-check-failing": "Skip-if-check-failing processed as check status gate in pre-activation job",
  "skip-if-match": "Skip-if-match processed as search check in pre-activation job",
  "skip-if-no-match": "Skip-if-no-match processed as search check in pre-activation job",
  "skip-roles": "Skip-roles processed as role check in pre-activation job",
  steps: "Steps injected into pre-activation job",
};

/** gh-aw keys under an event (e.g. `pull_request.names`) shown as comments. */
const EVENT_COMMENTED: Record<string, string> = {
  names: "Label filtering applied via job conditions",
  forks: "Fork filtering applied via job conditions",
  "lock-for-agent": "Lock-for-agent processed as issue locking in activation job",
  state: "State filtering compiled into if condition",
};

/** The `aw_context` input gh-aw adds to every `workflow_dispatch`. */
export const AW_CONTEXT = {
  default: dq(""),
  description: dq("Agent caller context (used internally by Agentic Workflows)."),
  required: false,
  type: "string",
};

/** The crons `on.schedule` became, and the fuzzy phrase behind each (undefined for a plain cron). */
export interface ParsedSchedules {
  crons: string[];
  friendly: (string | undefined)[];
}

/**
 * A value as gh-aw writes it: keys sorted (Go maps). In a commented gh-aw key (`literal`) a multi-line
 * string is a literal block, as the `on:` section is marshalled with literal-if-multiline on.
 */
function sortKeys(value: unknown, literal = false): YValue {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, literal));
  if (literal && typeof value === "string" && value.includes("\n")) return lit(value);
  if (isObject(value)) {
    const out: Record<string, YValue> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k], literal);
    return out;
  }
  return value as YValue;
}

/**
 * The emitted `on:` value: the keys of `on` and the commented gh-aw keys of `raw`, sorted. `on` is the
 * processed trigger map (schedules scattered, inputs added), `raw` the normalised `on:` as written.
 */
export function renderOn(
  on: Record<string, unknown>,
  raw: Triggers,
  schedules: ParsedSchedules,
): Record<string, YValue> {
  const rendered: Record<string, YValue> = {};
  const keys = [...Object.keys(on), ...Object.keys(raw).filter((k) => COMMENTED[k])].sort();
  for (const key of keys) {
    if (COMMENTED[key]) {
      rendered[`__commented_${key}`] = new Commented(key, sortKeys(raw[key], true), COMMENTED[key]);
    } else if (key === "schedule") {
      rendered.schedule = renderSchedule(
        mappingsOf(on.schedule),
        raw.schedule,
        REBUILT_ON_KEYS.some((k) => k in raw) ? { ...schedules, withComments: false } : schedules,
      );
    } else if (key === "workflow_dispatch" || key === "workflow_call") {
      rendered[key] = renderDispatch(objectOf(on[key]), raw[key]?.inputs?.aw_context !== undefined);
    } else {
      const trigger = on[key];
      rendered[key] = isMapping(trigger) ? renderEvent(key, trigger) : sortKeys(trigger);
    }
  }
  return rendered;
}

/**
 * `on:` keys that make gh-aw v0.76 build the emitted `on:` from a new map (command triggers folded into
 * events; a reaction, status comment or `stop-after` taken out and the other events marshalled again). It
 * finds the friendly forms by the address of the frontmatter map they were recorded for
 * (`scheduleFriendlyFormats["%p"]`), so with a new map the lookup misses and the `# Friendly format` comments
 * are not written (later releases key them by compilation and always write them).
 */
const REBUILT_ON_KEYS = [
  "slash_command",
  "label_command",
  "command",
  "reaction",
  "status-comment",
  "stop-after",
];

/** The `schedule:` entries, each with a comment naming the friendly form it was written in. */
function renderSchedule(
  entries: Record<string, unknown>[],
  rawSchedule: unknown,
  { crons, friendly, withComments = true }: ParsedSchedules & { withComments?: boolean },
): YValue[] {
  return entries.map((item, index) => {
    const entry: Record<string, YValue> = { cron: dq(String(item.cron)) };
    if (!withComments) return entry;
    const fuzzy = friendly[index];
    // Indexes the written schedule by the emitted entry's position, as gh-aw does.
    const rawCron = String(
      objectOf(Array.isArray(rawSchedule) ? rawSchedule[index] : rawSchedule).cron ??
        rawSchedule,
    );
    if (fuzzy !== undefined) entry.__c = new Comment(`Friendly format: ${fuzzy} (scattered)`);
    else if (rawCron !== crons[index] && typeof rawCron === "string") {
      entry.__c = new Comment(`Friendly format: ${rawCron.trim()}`);
    }
    return entry;
  });
}

/** An event's settings, sorted, with gh-aw-only filters shown as comments. */
function renderEvent(name: string, settings: Record<string, unknown>): Record<string, YValue> {
  const rendered: Record<string, YValue> = {};
  if (name === "workflow_run") {
    rendered.__zizmor = new Comment(WORKFLOW_RUN_ZIZMOR_NOTE);
  }
  for (const key of Object.keys(settings).sort()) {
    if (EVENT_COMMENTED[key]) {
      rendered[`__commented_${key}`] = new Commented(key, sortKeys(settings[key]), EVENT_COMMENTED[key]);
    } else rendered[key] = sortKeys(settings[key]);
  }
  return rendered;
}

/** gh-aw lists its own `aw_context` input first, then the inputs by name. */
function awContextFirst(a: string, b: string): number {
  return a === "aw_context" ? -1 : b === "aw_context" ? 1 : a < b ? -1 : 1;
}

/** `workflow_dispatch:` (or `workflow_call:`) with its settings sorted and its inputs in gh-aw's order. */
/**
 * A dispatch trigger with its inputs, `aw_context` first. gh-aw writes the `aw_context` input it adds in its
 * own (double-quoted) form; one the author declared is marshalled like any other input.
 */
function renderDispatch(dispatch: Record<string, unknown>, authorAwContext = false): Record<string, YValue> {
  const settings = objectOf<YValue>(sortKeys({ ...dispatch, inputs: undefined }));
  delete settings.inputs;
  const declared = objectOf(dispatch.inputs);
  const inputs: Record<string, YValue> = {};
  for (const name of Object.keys(declared).sort(awContextFirst)) {
    inputs[name] = name === "aw_context" && !authorAwContext
      ? AW_CONTEXT as unknown as YValue
      : sortKeys(declared[name]);
  }
  return { ...settings, inputs };
}
