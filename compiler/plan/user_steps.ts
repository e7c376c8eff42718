/**
 * The workflow's own steps as gh-aw re-serialises them: mapping keys sorted alphabetically at every level
 * (Go maps) and multi-line scripts written the way gh-aw's YAML library (goccy/go-yaml v1.19) writes them.
 *
 * goccy's encoder quotes a string when `token.IsNeedQuoted` says so, unless the encoder was built with
 * `UseLiteralStyleIfMultiline(true)`, in which case every multi-line string becomes a literal block. gh-aw
 * marshals the agent job's custom steps (the workflow's `steps:` and imported steps) without that option, and
 * every other user step (custom `jobs:`, `safe-outputs.jobs`, `on.steps`) with it; so a multi-line script
 * holding `#`, `\`, `: ` or `- ` is one double-quoted line in the agent job and a literal block elsewhere.
 */
import { dq, lit, litBare, type YValue } from "../yaml/writer.ts";
import { isMapping, isObject, objectOf } from "../source/values.ts";

/**
 * How a step is written: goccy's default encoder, its literal-if-multiline mode, or gh-aw's
 * `ConvertStepToYAML` (`on.steps`, the custom pre-activation steps): literal multi-line strings too, the
 * step's own keys in gh-aw's conventional order, and each line left blank by trimming written empty.
 */
export type MultilineStyle = "goccy-default" | "literal" | "convert-step";

/** gh-aw's `PriorityStepFields`: `ConvertStepToYAML` writes these first, then the others by name. */
const PRIORITY_STEP_FIELDS = ["name", "id", "if", "run", "uses", "script", "env", "with"];

/** The order a step's own keys are written in for `style`: Go's sorted map, or gh-aw's priority first. */
export function stepKeyOrder(keys: string[], style: MultilineStyle): string[] {
  const sorted = [...keys].sort();
  if (style !== "convert-step") return sorted;
  return [
    ...PRIORITY_STEP_FIELDS.filter((k) => keys.includes(k)),
    ...sorted.filter((k) => !PRIORITY_STEP_FIELDS.includes(k)),
  ];
}

/**
 * goccy/go-yaml's `token.IsNeedQuoted` for a multi-line value (reserved words, numbers and timestamps
 * cannot span lines, so only the character rules apply): a leading indicator, a trailing `:` or space,
 * a `#` or `\` anywhere, or `:`/`-` followed by a space.
 */
export function goccyNeedsQuotes(s: string): boolean {
  if (s === "" || s === "-") return true;
  if ("*&[{}],!|>%'\"@ `".includes(s[0])) return true;
  if (s.endsWith(":") || s.endsWith(" ")) return true;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "#" || c === "\\") return true;
    if ((c === ":" || c === "-") && s[i + 1] === " ") return true;
  }
  return false;
}

/** Converts one step value (recursively) to the writer's form. */
export function userStepValue(v: unknown, style: MultilineStyle): YValue {
  if (v === undefined) return null;
  if (typeof v === "string") {
    if (!v.includes("\n")) return v;
    // `ConvertStepToYAML` re-indents the marshalled step line by line and writes a line that trims to
    // nothing as an empty one, so a script line of only spaces loses them.
    if (style === "convert-step") return litBare(v.replace(/^[ \t]+$/gm, ""));
    return style === "goccy-default" && goccyNeedsQuotes(v) ? dq(v) : lit(v);
  }
  if (Array.isArray(v)) return v.map((x) => userStepValue(x, style));
  if (isObject(v)) {
    const out: Record<string, YValue> = {};
    for (const k of Object.keys(v).sort()) out[k] = userStepValue(v[k], style);
    return out;
  }
  return v as YValue;
}

/**
 * The workflow's own `steps:` after gh-aw's round trip: it marshals the section, trims the document's final
 * line break (`extractTopLevelYAMLSection`), then parses it again to merge it with imported steps. When the
 * document's last scalar is a literal block, that trim eats the block's own final line break, so the last
 * step's last value (keys in Go's sorted order) comes back one `\n` shorter: `|` turns `|-`, and a one-line
 * script turns plain. A double-quoted last value keeps its text (`quotedToo`: it too loses it, as later
 * releases write it), as does anything but the document's end.
 */
export function afterSectionRoundTrip(steps: unknown[], quotedToo = false): unknown[] {
  if (steps.length === 0) return steps;
  return [...steps.slice(0, -1), trimLastScalar(steps[steps.length - 1], quotedToo)];
}

/** `quotedToo`: later releases write every multi-line value as a block there, so a quoted one loses it too. */
function trimLastScalar(v: unknown, quotedToo = false): unknown {
  if (typeof v === "string") {
    const literal = v.includes("\n") && (quotedToo || !goccyNeedsQuotes(v));
    return literal && v.endsWith("\n") ? v.slice(0, -1) : v;
  }
  if (Array.isArray(v)) return afterSectionRoundTrip(v, quotedToo);
  if (v && typeof v === "object") {
    const keys = Object.keys(v).sort();
    const last = keys[keys.length - 1];
    if (last === undefined) return v;
    return {
      ...objectOf(v),
      [last]: trimLastScalar(objectOf(v)[last], quotedToo),
    };
  }
  return v;
}

/**
 * gh-aw converts the agent job's own steps (`steps:`, imported steps, `pre-steps:`, `pre-agent-steps:`) to its
 * typed `WorkflowStep`, whose `env` is a map of strings: a number or boolean becomes its text (`365` →
 * `"365"`, written quoted), a list or map its JSON, and a null is dropped. Every other key keeps its parsed value.
 */
export function asTypedSteps(steps: unknown[]): unknown[] {
  return steps.map((step) => {
    if (!isMapping(step)) return step;
    const env = step.env;
    if (!isMapping(env)) return step;
    const strings: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(env)) {
      if (v === null || v === undefined) continue;
      strings[k] = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
    }
    const { env: _env, ...rest } = step;
    // An env left empty (only nulls) is dropped, as the typed step omits it.
    return Object.keys(strings).length > 0 ? { ...rest, env: strings } : rest;
  });
}
