/**
 * Per-type field validation tables for safe-output items, as the agent job hands them to the runtime
 * (`GH_AW_VALIDATION_JSON` of "Generate Safe Outputs Tools"): each enabled type's default item limit, its
 * fields (required, type, sanitize, lengths, number kinds, enums, item rules, patterns) and an optional
 * cross-field rule. Each type's rules live in its module under `types/`.
 */
import { FIELD_KEY_ORDER, type FieldRule, type TypeRule } from "./types/fields.ts";
import { snakeCase } from "./types/contract.ts";
import { SAFE_OUTPUT_TYPES } from "./types/registry.ts";

export { FIELD_KEY_ORDER };

/** Validation per safe-output type (snake_case). Types without rules are not validated by field. */
export const VALIDATION: Readonly<Record<string, TypeRule>> = Object.fromEntries(
  SAFE_OUTPUT_TYPES.flatMap((type) => (type.validation ? [[snakeCase(type.key), type.validation]] : [])),
);

/** One field's rules with keys in the runtime's order. */
function orderedField(f: FieldRule): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_KEY_ORDER) if (f[k] !== undefined) out[k] = f[k];
  return out;
}

/**
 * The validation JSON for the enabled types (snake_case names; unknown ones are skipped): types and
 * fields in name order, two-space indentation, as the runtime's `validation.json`; `release` holds the
 * target's own rules by type (they replace v0.76.1's).
 */
export function validationJson(
  enabledTypes: Iterable<string>,
  release: Readonly<Record<string, unknown>> = {},
): string {
  const out: Record<string, unknown> = {};
  for (const t of [...new Set(enabledTypes)].sort()) {
    // A release's own rules for the type, as it writes them.
    if (release[t] !== undefined) {
      out[t] = release[t];
      continue;
    }
    const rule = VALIDATION[t];
    if (!rule) continue;
    const fields: Record<string, unknown> = {};
    for (const name of Object.keys(rule.fields).sort()) fields[name] = orderedField(rule.fields[name]);
    out[t] = {
      defaultMax: rule.defaultMax,
      fields,
      ...(rule.customValidation ? { customValidation: rule.customValidation } : {}),
    };
  }
  return goJson(out, 2);
}

/**
 * JSON as Go's encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped; with `indent`, nested
 * values on their own lines (empty objects and arrays stay `{}` / `[]`).
 */
export function goJson(value: unknown, indent = 0): string {
  return JSON.stringify(value, null, indent || undefined).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
