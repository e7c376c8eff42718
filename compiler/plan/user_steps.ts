/**
 * The workflow's own `steps:` as gh-aw re-serialises them into the agent job: mapping keys sorted
 * alphabetically at every level (Go maps), multi-line scripts kept as literal blocks unless they contain an
 * empty line, in which case they are written as one double-quoted line (what gh-aw's YAML library does).
 */
import { dq, lit, type YValue } from "../yaml/writer.ts";

/** Converts one step value (recursively) to the writer's form. */
export function userStepValue(v: unknown): YValue {
  if (v === undefined) return null;
  if (typeof v === "string") {
    if (!v.includes("\n")) return v;
    return v.includes("\n\n") ? dq(v) : lit(v);
  }
  if (Array.isArray(v)) return v.map(userStepValue);
  if (v && typeof v === "object") {
    const out: Record<string, YValue> = {};
    for (const k of Object.keys(v).sort()) out[k] = userStepValue((v as Record<string, unknown>)[k]);
    return out;
  }
  return v as YValue;
}
