/**
 * The limit flags of `gateway:keys create` and `update`, parsed into key settings. Every bad value is
 * reported with its flag; on `update`, `none` clears a setting.
 */
import type { KeySettings } from "./store.ts";

/** The raw flag values (as node:util parseArgs returns them). */
export interface LimitFlags {
  rpm?: string;
  tpm?: string;
  "max-concurrency"?: string;
  "budget-usd"?: string;
  "budget-period"?: string;
  models?: string;
  expires?: string;
}

/** The parseArgs option table of the limit flags. */
export const LIMIT_OPTIONS = {
  rpm: { type: "string" },
  tpm: { type: "string" },
  "max-concurrency": { type: "string" },
  "budget-usd": { type: "string" },
  "budget-period": { type: "string" },
  models: { type: "string" },
  expires: { type: "string" },
} as const;

/** Settings, or the problems found (one line per bad flag). */
export type ParsedLimits = { ok: true; settings: KeySettings } | { ok: false; problems: string[] };

/** Parses the limit flags; `allowClear` (update) accepts `none` to remove a setting. */
export function parseLimitFlags(flags: LimitFlags, allowClear: boolean, now = Date.now()): ParsedLimits {
  const problems: string[] = [];
  const settings: KeySettings = {};
  const cleared = (raw: string | undefined) => allowClear && raw === "none";
  const integer = (flag: keyof LimitFlags, set: (value: number | null) => void) => {
    const raw = flags[flag];
    if (raw === undefined) return;
    if (cleared(raw)) return set(null);
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
      problems.push(`--${flag}: expected a positive integer, got ${JSON.stringify(raw)}`);
    } else set(Number(raw));
  };
  integer("rpm", (v) => settings.rpm = v);
  integer("tpm", (v) => settings.tpm = v);
  integer("max-concurrency", (v) => settings.maxConcurrency = v);

  const budget = flags["budget-usd"];
  const period = flags["budget-period"];
  if (budget !== undefined) {
    if (cleared(budget)) {
      settings.budgetUsd = null;
      settings.budgetPeriod = null;
    } else if (!/^\d+(\.\d+)?$/.test(budget)) {
      problems.push(
        `--budget-usd: expected an amount in USD such as 25 or 0.50, got ${JSON.stringify(budget)}`,
      );
    } else settings.budgetUsd = Number(budget);
  }
  if (period !== undefined && !cleared(period)) {
    if (period !== "day" && period !== "month") {
      problems.push(`--budget-period: expected day or month, got ${JSON.stringify(period)}`);
    } else settings.budgetPeriod = period;
  }
  if (budget !== undefined && !cleared(budget) && period === undefined && !allowClear) {
    problems.push("--budget-usd needs --budget-period day|month");
  }
  if (period !== undefined && budget === undefined && !allowClear) {
    problems.push("--budget-period needs --budget-usd");
  }

  const models = flags.models;
  if (models !== undefined) {
    if (cleared(models)) settings.models = null;
    else {
      const list = models.split(",").map((m) => m.trim()).filter(Boolean);
      if (!list.length) {
        problems.push(`--models: expected a comma-separated list of models, got ${JSON.stringify(models)}`);
      } else settings.models = list;
    }
  }

  const expires = flags.expires;
  if (expires !== undefined) {
    if (cleared(expires)) settings.expiresAt = null;
    else {
      const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(expires)
        ? Date.parse(expires)
        : NaN;
      if (Number.isNaN(at)) {
        problems.push(
          `--expires: expected an ISO 8601 date or time such as 2026-01-31T00:00:00Z, got ${
            JSON.stringify(expires)
          }`,
        );
      } else if (at <= now) problems.push(`--expires: ${expires} is in the past`);
      else settings.expiresAt = at;
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, settings };
}
