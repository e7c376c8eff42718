/**
 * The key form's fields, parsed with the same rules as `gateway:keys` (keys/cli_flags.ts) and with every
 * problem attached to the field it is about, so the page can show it next to that field.
 */
import { type LimitFlags, parseLimitFlags } from "../keys/cli_flags.ts";
import type { ApiKeyInfo, KeySettings } from "../keys/store.ts";

/** The limit fields, named as the CLI flags. */
export const LIMIT_FIELDS = [
  "rpm",
  "tpm",
  "max-concurrency",
  "budget-usd",
  "budget-period",
  "models",
  "expires",
] as const;

/** Raw form values by field name (`name` plus the limit fields). */
export type KeyFormValues = Partial<Record<"name" | typeof LIMIT_FIELDS[number], string>>;

/** Parsed settings, or the problems by field. */
export type KeyFormResult =
  | { ok: true; name: string; settings: KeySettings }
  | { ok: false; errors: Record<string, string> };

/** Reads the form fields out of a submitted body. */
export function keyFormValues(form: FormData): KeyFormValues {
  const values: KeyFormValues = {};
  for (const field of ["name", ...LIMIT_FIELDS] as const) {
    const value = form.get(field);
    if (typeof value === "string") values[field] = value.trim();
  }
  return values;
}

/**
 * Parses a create (`update` false: empty means "no limit") or an update (empty clears the limit) form.
 */
export function parseKeyForm(values: KeyFormValues, update: boolean, now = Date.now()): KeyFormResult {
  const errors: Record<string, string> = {};
  const name = values.name ?? "";
  if (!update) {
    if (!name) errors.name = "Enter a name for the key.";
    else if (name.length > 100) errors.name = "Use at most 100 characters.";
  }
  const flags: LimitFlags = {};
  for (const field of LIMIT_FIELDS) {
    const raw = values[field] ?? "";
    if (raw) flags[field] = raw;
    else if (update) flags[field] = "none";
  }
  if (update && flags["budget-usd"] !== "none" && flags["budget-period"] === "none") {
    errors["budget-period"] = "Choose day or month for the budget.";
  }
  if (update && flags["budget-usd"] === "none" && flags["budget-period"] !== "none") {
    errors["budget-usd"] = "Enter an amount for the budget, or set the period to none.";
  }
  const parsed = parseLimitFlags(flags, update, now);
  if (!parsed.ok) {
    for (const problem of parsed.problems) {
      const match = /^--([a-z-]+)(?::\s*)?(.*)$/.exec(problem);
      const field = match?.[1] ?? "name";
      const message = (match?.[2] ?? problem).replace(/--([a-z-]+)/g, "$1").trim();
      errors[field] ??= message.charAt(0).toUpperCase() + message.slice(1) + ".";
    }
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, name, settings: parsed.ok ? parsed.settings : {} };
}

/** The form values that show a key's current settings (for the edit form). */
export function valuesOfKey(key: ApiKeyInfo): KeyFormValues {
  const text = (value: number | null) => value === null ? "" : String(value);
  return {
    name: key.name,
    rpm: text(key.rpm),
    tpm: text(key.tpm),
    "max-concurrency": text(key.maxConcurrency),
    "budget-usd": text(key.budgetUsd),
    "budget-period": key.budgetPeriod ?? "",
    models: key.models?.join(", ") ?? "",
    expires: key.expiresAt ?? "",
  };
}
