/**
 * `on:` processing: string shorthands, fuzzy schedules (scattered), slash/label commands, the injected
 * `aw_context` dispatch input, and the gh-aw-only keys that are removed from (or commented out of) the
 * emitted `on:`.
 */
import type { Diagnostic } from "../api.ts";
import { parseSchedule } from "./schedule.ts";
import { Comment, Commented, dq, writeYaml, type YValue } from "../yaml/writer.ts";
import { diagnostic } from "../source/diagnostics.ts";

/** gh-aw keys shown as comments in the emitted `on:` (key → reason). */
const COMMENTED: Record<string, string> = {
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
  /** Original (normalised) `on:` object, including gh-aw keys. */
  raw: Record<string, unknown>;
  /** Scattered/validated crons in order. */
  crons: string[];
  slashCommand?: { names: string[]; events: string[]; centralized: boolean };
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

const AW_CONTEXT = {
  default: dq(""),
  description: dq("Agent caller context (used internally by Agentic Workflows)."),
  required: false,
  type: "string",
};

function asList(v: unknown): string[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
}

function sortKeys(v: unknown): YValue {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out: Record<string, YValue> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v as YValue;
}

/** The `item_number` dispatch input gh-aw adds for label-driven workflows. */
function itemNumberInput(description: string): Record<string, unknown> {
  return { default: "", description, required: false, type: "string" };
}

/** Adds `item_number` to the `workflow_dispatch` inputs (keeping a user-declared one). */
function withItemNumber(wd: unknown): Record<string, unknown> {
  const o = (wd ?? {}) as Record<string, unknown>;
  const inputs = (o.inputs ?? {}) as Record<string, unknown>;
  if (inputs.item_number !== undefined) return o;
  return {
    ...o,
    inputs: {
      ...inputs,
      item_number: itemNumberInput("The number of the issue, pull request, or discussion"),
    },
  };
}

/** Expands a string `on:` into its object form. */
export function expandOnString(s: string): Record<string, unknown> | undefined {
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

/** Processes `on:`; `seed` is the scattering seed. */
export function processTriggers(
  rawOn: unknown,
  seed: string,
  file: string,
  locate: (p: (string | number)[]) => [number, number],
  diags: Diagnostic[],
): TriggerInfo {
  let raw: Record<string, unknown>;
  const crons: string[] = [];
  const friendly: (string | undefined)[] = [];
  if (typeof rawOn === "string") {
    const expanded = expandOnString(rawOn);
    if (expanded) raw = expanded;
    else raw = { schedule: rawOn, workflow_dispatch: null };
  } else raw = { ...(rawOn as Record<string, unknown>) };

  const on: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (REMOVED.includes(k) || COMMENTED[k]) continue;
    on[k] = v;
  }
  // Schedules.
  if (raw.schedule !== undefined) {
    const items = typeof raw.schedule === "string"
      ? [{ cron: raw.schedule }]
      : Array.isArray(raw.schedule)
      ? raw.schedule.map((x) => (typeof x === "string" ? { cron: x } : x as Record<string, unknown>))
      : [];
    const out: Record<string, unknown>[] = [];
    items.forEach((item, i) => {
      const res = parseSchedule(String(item.cron ?? ""), seed);
      if (res.kind === "error") {
        const [line, column] = locate(
          typeof raw.schedule === "string" ? ["on", "schedule"] : ["on", "schedule", i, "cron"],
        );
        diags.push(diagnostic("invalid-schedule", { file, line, column }, res.message, res.hint));
        return;
      }
      crons.push(res.cron);
      friendly.push(res.kind === "fuzzy" ? res.friendly : undefined);
      out.push({ cron: res.cron });
    });
    on.schedule = out;
    // Fuzzy schedules can always be run by hand too.
    if (friendly.some((f) => f !== undefined)) on.workflow_dispatch = on.workflow_dispatch ?? null;
  }
  // Slash command.
  let slashCommand: TriggerInfo["slashCommand"];
  const sc = raw.slash_command ?? raw.command;
  if (sc !== undefined) {
    const o = typeof sc === "string" ? { name: sc } : (sc ?? {}) as Record<string, unknown>;
    const names = asList(o.name);
    const events = o.events === undefined || asList(o.events).includes("*")
      ? Object.keys(SLASH_EVENTS)
      : asList(o.events).flatMap((e) =>
        e === "pull_request_comment" ? ["issue_comment"] : e === "issue_comment" ? ["issue_comment"] : [e]
      );
    const centralized = o.strategy === "centralized";
    slashCommand = { names, events: [...new Set(events)], centralized };
    if (centralized) {
      on.workflow_dispatch = on.workflow_dispatch ?? null;
    } else {
      for (const ev of Object.keys(SLASH_EVENTS)) {
        if (slashCommand.events.includes(ev)) on[ev] = { types: SLASH_EVENTS[ev] };
      }
    }
  }
  // Label command.
  let labelCommand: TriggerInfo["labelCommand"];
  if (raw.label_command !== undefined) {
    const lc = raw.label_command;
    const o = typeof lc === "string" ? { name: lc } : (lc ?? {}) as Record<string, unknown>;
    const names = asList(o.name ?? o.names);
    const events = o.events ? asList(o.events) : ["issues", "pull_request", "discussion"];
    const decentralized = o.strategy === "decentralized";
    labelCommand = { names, events, removeLabel: o.remove_label !== false, decentralized };
    if (!decentralized) { for (const ev of events) on[ev] = { types: ["labeled"] }; }
    // With a slash command too, the dispatch trigger is the command router's (no item_number).
    on.workflow_dispatch = slashCommand ? on.workflow_dispatch ?? null : withItemNumber(on.workflow_dispatch);
  }
  // aw_context on every workflow_dispatch.
  if ("workflow_dispatch" in on) {
    const wd = (on.workflow_dispatch ?? {}) as Record<string, unknown>;
    const inputs = { ...((wd.inputs ?? {}) as Record<string, unknown>) };
    on.workflow_dispatch = { ...wd, inputs: { aw_context: AW_CONTEXT, ...inputs } };
  }

  // Render: sorted keys, friendly-format comments after crons, commented gh-aw keys.
  const rendered: Record<string, YValue> = {};
  const keys = [...Object.keys(on), ...Object.keys(raw).filter((k) => COMMENTED[k])].sort();
  for (const k of keys) {
    if (COMMENTED[k]) {
      rendered[`__commented_${k}`] = new Commented(k, sortKeys(raw[k]), COMMENTED[k]);
      continue;
    }
    if (k === "schedule") {
      const seq: YValue[] = [];
      (on.schedule as Record<string, unknown>[]).forEach((item, i) => {
        const entry: Record<string, YValue> = { cron: dq(String(item.cron)) };
        const f = friendly[i];
        const rawCron = String(
          ((Array.isArray(raw.schedule) ? raw.schedule[i] : raw.schedule) as Record<string, unknown>)?.cron ??
            raw.schedule,
        );
        if (f !== undefined) entry.__c = new Comment(`Friendly format: ${f} (scattered)`);
        else if (rawCron !== crons[i] && typeof rawCron === "string") {
          entry.__c = new Comment(`Friendly format: ${rawCron.trim()}`);
        }
        seq.push(entry);
      });
      rendered.schedule = seq;
      continue;
    }
    const v = on[k];
    if (v && typeof v === "object" && !Array.isArray(v) && k !== "workflow_dispatch") {
      const ev: Record<string, YValue> = {};
      if (k === "workflow_run") {
        ev.__zizmor = new Comment(
          "zizmor: ignore[dangerous-triggers] - workflow_run trigger is secured with role and fork validation",
        );
      }
      const obj = v as Record<string, unknown>;
      for (const sk of Object.keys(obj).sort()) {
        if (EVENT_COMMENTED[sk]) {
          ev[`__commented_${sk}`] = new Commented(sk, sortKeys(obj[sk]), EVENT_COMMENTED[sk]);
        } else ev[sk] = sortKeys(obj[sk]);
      }
      rendered[k] = ev;
    } else if (k === "workflow_dispatch") {
      const wd = v as Record<string, unknown>;
      const inner = sortKeys({ ...wd, inputs: undefined }) as Record<string, YValue>;
      delete inner.inputs;
      const inputs: Record<string, YValue> = {};
      const inObj = wd.inputs as Record<string, unknown>;
      // gh-aw lists its own aw_context input first, then the inputs by name.
      for (
        const name of Object.keys(inObj).sort((
          a,
          b,
        ) => (a === "aw_context" ? -1 : b === "aw_context" ? 1 : a < b ? -1 : 1))
      ) {
        inputs[name] = name === "aw_context" ? AW_CONTEXT as unknown as YValue : sortKeys(inObj[name]);
      }
      rendered[k] = { ...inner, inputs };
    } else rendered[k] = sortKeys(v);
  }
  const events = Object.keys(on);
  return { on: rendered, raw, crons, slashCommand, labelCommand, events };
}

/**
 * The workflow-level `concurrency:` gh-aw writes: the user's (without `job-discriminator`), else a group
 * keyed by the triggering entity. Like gh-aw, event kinds are found by substring in the rendered `on:`
 * text (comments and input names included), command workflows key on the issue/PR number, and PR
 * workflows cancel superseded runs.
 */
export function concurrencyFor(
  user: unknown,
  t: TriggerInfo,
  toY: (v: unknown) => YValue,
): Record<string, YValue> {
  if (typeof user === "string") return { group: user };
  if (user && typeof user === "object") {
    const u = { ...(user as Record<string, unknown>) };
    delete u["job-discriminator"];
    if (Object.keys(u).length > 0) {
      const out: Record<string, YValue> = {};
      for (const k of Object.keys(u).sort()) out[k] = toY(u[k]);
      return out;
    }
  }
  const on = writeYaml(t.on, 1, { indentSequences: false }).join("\n");
  const wd = (t.on.workflow_dispatch ?? {}) as Record<string, unknown>;
  const item = (wd.inputs as Record<string, unknown> | undefined)?.item_number !== undefined;
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
  user: unknown,
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
  const disc = user && typeof user === "object"
    ? (user as Record<string, unknown>)["job-discriminator"]
    : undefined;
  return {
    group: dq(`gh-aw-${engineId}-\${{ github.workflow }}${disc !== undefined ? `-${disc}` : ""}`),
    queue: "max",
  };
}
