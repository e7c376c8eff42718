/**
 * The Usage page's query (`since`, `until` as UTC dates, `step`, `by`, `key`), parsed with a default of the
 * last 7 days by day; every bad value is reported on its field. Hourly buckets are limited to 31 days so a
 * chart stays readable and cheap.
 */
import { BREAKDOWNS, type SeriesFilters, STEPS } from "../usage/series.ts";

/** A parsed Usage query. */
export interface UsageQuery extends SeriesFilters {
  step: keyof typeof STEPS;
  by: typeof BREAKDOWNS[number];
}

/** The raw values, echoed back into the form. */
export type UsageQueryValues = Record<"since" | "until" | "step" | "by" | "key", string>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY = 86_400_000;

/** Parses the query string; `now` fixes the default range. */
export function parseUsageQuery(
  params: URLSearchParams,
  now: number,
): { values: UsageQueryValues; query?: UsageQuery; errors: Record<string, string> } {
  const today = new Date(now).toISOString().slice(0, 10);
  const weekAgo = new Date(now - 6 * DAY).toISOString().slice(0, 10);
  const values: UsageQueryValues = {
    since: params.get("since")?.trim() || weekAgo,
    until: params.get("until")?.trim() || today,
    step: params.get("step")?.trim() || "day",
    by: params.get("by")?.trim() || "key",
    key: params.get("key")?.trim() ?? "",
  };
  const errors: Record<string, string> = {};
  const dateOf = (field: "since" | "until") => {
    const at = DATE.test(values[field]) ? Date.parse(`${values[field]}T00:00:00Z`) : NaN;
    if (Number.isNaN(at)) errors[field] = `Expected a date such as ${today}, got “${values[field]}”.`;
    return at;
  };
  const since = dateOf("since");
  const until = dateOf("until") + DAY; // the until date is inclusive
  if (!errors.since && !errors.until && since >= until) {
    errors.until = "The end date is before the start date.";
  }
  if (!(values.step in STEPS)) errors.step = "Choose day or hour.";
  if (!(BREAKDOWNS as readonly string[]).includes(values.by)) errors.by = "Choose key, model or provider.";
  if (!errors.since && !errors.until && values.step === "hour" && until - since > 31 * DAY) {
    errors.step = "Hourly buckets cover at most 31 days; choose day or a shorter range.";
  }
  if (!errors.since && !errors.until && until - since > 400 * DAY) errors.since = "Choose at most 400 days.";
  if (Object.keys(errors).length) return { values, errors };
  return {
    values,
    errors,
    query: {
      since,
      until,
      step: values.step as UsageQuery["step"],
      by: values.by as UsageQuery["by"],
      key: values.key || undefined,
    },
  };
}
