/**
 * GitHub's workflow syntax of `on:` events (filters, `workflow_dispatch` and `workflow_call` inputs), plus
 * gh-aw's additions (`names`, `forks`, `draft`, `lock-for-agent`, `deployment_status.state`).
 */
import type { DiagnosticCode } from "./diagnostics.ts";

type Path = (string | number)[];
/** Where a problem goes: code, path, plain-words message, hint. */
export type Report = (code: DiagnosticCode, path: Path, message: string, hint: string) => void;

/** A mapping (not null, not a list). */
export const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
/** Text, or a list of texts. */
export const isTextOrTexts = (v: unknown) =>
  typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"));

/** Describes a found value in a message ("a list", "the number 5", …). */
export function found(v: unknown): string {
  if (v === null) return "nothing (null)";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return typeof v === "string"
    ? `the text "${v}"`
    : `${typeof v === "number" ? "the number" : ""} ${v}`.trim();
}

const TYPES = ["types"];
const BRANCHES = ["branches", "branches-ignore"];
const PATHS = ["paths", "paths-ignore"];

/** Filter keys of each event (GitHub's, plus gh-aw's); an event absent here takes no filters. */
const EVENT_FILTERS: Record<string, string[]> = {
  push: [...BRANCHES, "tags", "tags-ignore", ...PATHS],
  pull_request: [...TYPES, ...BRANCHES, ...PATHS, "draft", "forks", "names"],
  pull_request_target: [...TYPES, ...BRANCHES, ...PATHS, "draft", "forks", "names"],
  workflow_run: [...TYPES, "workflows", ...BRANCHES],
  workflow_dispatch: ["inputs"],
  workflow_call: ["inputs", "outputs", "secrets"],
  issues: [...TYPES, "names", "lock-for-agent"],
  issue_comment: [...TYPES, "lock-for-agent"],
  discussion: [...TYPES, "names", "lock-for-agent"],
  discussion_comment: [...TYPES, "lock-for-agent"],
  deployment_status: ["state"],
  ...Object.fromEntries(
    [
      "branch_protection_rule",
      "check_run",
      "check_suite",
      "label",
      "merge_group",
      "milestone",
      "pull_request_review",
      "pull_request_review_comment",
      "registry_package",
      "release",
      "repository_dispatch",
      "watch",
    ].map((e) => [e, TYPES]),
  ),
  ...Object.fromEntries(
    ["create", "delete", "deployment", "fork", "gollum", "page_build", "public", "status"].map((
      e,
    ) => [e, []]),
  ),
};

/** The keys an input of each reusable or manual trigger may have. */
const INPUT_KEYS: Record<string, Record<string, string[]>> = {
  workflow_dispatch: { inputs: ["description", "required", "default", "type", "options"] },
  workflow_call: {
    inputs: ["description", "required", "default", "type"],
    outputs: ["description", "value"],
    secrets: ["description", "required"],
  },
};
const INPUT_TYPES: Record<string, string[]> = {
  workflow_dispatch: ["string", "boolean", "choice", "number", "environment"],
  workflow_call: ["string", "boolean", "number"],
};

/** Checks one `on:` event's value (gh-aw's own `on:` keys and unknown events are not events here). */
export function checkTrigger(event: string, value: unknown, report: Report): void {
  const allowed = EVENT_FILTERS[event];
  const path = ["on", event];
  if (allowed === undefined || value === null) return;
  const example = allowed.length > 0
    ? `for example \`${event}: {${allowed[0]}: […]}\``
    : `write \`${event}:\` alone`;
  if (!isMapping(value)) {
    report(
      "invalid-trigger",
      path,
      `\`on.${event}\` must be empty or a mapping of filters, not ${found(value)}`,
      example,
    );
    return;
  }
  for (const [key, filter] of Object.entries(value)) {
    if (!allowed.includes(key)) {
      report(
        "invalid-trigger",
        [...path, key],
        `\`${key}\` is not a filter of the \`${event}\` event`,
        allowed.length > 0 ? `its filters are ${allowed.join(", ")}` : `\`${event}\` takes no filters`,
      );
    } else if ([...TYPES, ...BRANCHES, ...PATHS, "tags", "tags-ignore", "workflows", "names"].includes(key)) {
      if (!isTextOrTexts(filter)) {
        report(
          "invalid-trigger",
          [...path, key],
          `\`${event}.${key}\` must be text or a list of texts, not ${found(filter)}`,
          `for example \`${key}: [main]\``,
        );
      }
    }
  }
  for (
    const [a, b] of [["branches", "branches-ignore"], ["paths", "paths-ignore"], ["tags", "tags-ignore"]]
  ) {
    if (value[a] !== undefined && value[b] !== undefined) {
      report(
        "invalid-trigger",
        [...path, b],
        `\`${event}\` cannot filter with both \`${a}\` and \`${b}\``,
        `use \`${a}\` with \`!\`-prefixed patterns to exclude`,
      );
    }
  }
  for (const [section, keys] of Object.entries(INPUT_KEYS[event] ?? {})) {
    const items = value[section];
    if (items === undefined || items === null) continue;
    if (!isMapping(items)) {
      report(
        "invalid-trigger",
        [...path, section],
        `\`${event}.${section}\` must be a mapping of names to definitions, not ${found(items)}`,
        `for example \`${section}: {topic: {type: string}}\``,
      );
      continue;
    }
    for (const [name, def] of Object.entries(items)) {
      if (def === null) continue;
      if (!isMapping(def)) {
        report(
          "invalid-trigger",
          [...path, section, name],
          `\`${section}.${name}\` must be a mapping (description, type, …), not ${found(def)}`,
          `for example \`${name}: {description: …, type: string}\``,
        );
        continue;
      }
      for (const key of Object.keys(def)) {
        if (!keys.includes(key)) {
          report(
            "invalid-trigger",
            [...path, section, name, key],
            `\`${key}\` is not a field of a \`${event}\` ${section.replace(/s$/, "")}`,
            `its fields are ${keys.join(", ")}`,
          );
        }
      }
      if (section === "inputs" && def.type !== undefined && !INPUT_TYPES[event].includes(String(def.type))) {
        report(
          "invalid-trigger",
          [...path, section, name, "type"],
          `input type "${def.type}" is not a \`${event}\` input type`,
          `use one of ${INPUT_TYPES[event].join(", ")}`,
        );
      }
    }
  }
}
