/**
 * Building blocks of the constraint sentences a safe-output tool's description carries
 * (`GH_AW_TOOLS_META_JSON`), worded and quoted as gh-aw's Go code prints them.
 */
/** A type's settings as written, with the handler's normalised values. */
export type Cfg = Record<string, unknown>;

/** Go's `%q` of a string (printable Unicode kept, quotes and backslashes escaped). */
export const q = (s: string): string => JSON.stringify(s);
/** `["a" "b"]`: each item quoted, space-separated. */
export const quotedList = (items: string[]): string => `[${items.map(q).join(" ")}]`;
/** `[a b]`: Go's `%v` of a string slice. */
export const plainList = (items: string[]): string => `[${items.join(" ")}]`;

/** A string setting, or empty. */
export const str = (c: Cfg, k: string): string => (typeof c[k] === "string" ? c[k] as string : "");
/** A string or list setting as a list. */
export const strs = (c: Cfg, k: string): string[] => {
  const v = c[k];
  if (typeof v === "string") return v ? [v] : [];
  return Array.isArray(v) ? v.map(String) : [];
};
/** A switch that is on when present and not false. */
export const flag = (c: Cfg, k: string): boolean => k in c && c[k] !== false;

/** One sentence-builder per tool: given the raw config and the effective max, the constraint sentences. */
export type Collector = (c: Cfg, max: number) => string[];

export function maxSentence(max: number, what: string): string[] {
  return max > 0 ? [`Maximum ${max} ${what}.`] : [];
}
/** `Target: …` of a type that picks its item. */
export const target = (c: Cfg): string[] => (str(c, "target") ? [`Target: ${str(c, "target")}.`] : []);
/** `… in repository "x"` of a cross-repository type. */
export const inRepo = (c: Cfg, what: string): string[] => {
  const repo = str(c, "target-repo");
  return repo ? [`${what} in repository ${q(repo)}.`] : [];
};
/** The labels an item may carry. */
export const allowedLabels = (c: Cfg): string[] => {
  const l = strs(c, "allowed-labels");
  return l.length ? [`Only these labels are allowed: ${quotedList(l)}.`] : [];
};
/** The issue fields an item may set. */
export const allowedFields = (c: Cfg): string[] => {
  const f = strs(c, "allowed-fields");
  if (!f.length) return [];
  return f.includes("*")
    ? ["Any issue field is allowed."]
    : [`Only these issue fields are allowed: ${quotedList(f)}.`];
};
/** The prefix added to created titles. */
export const titlePrefix = (c: Cfg): string[] =>
  str(c, "title-prefix") ? [`Title will be prefixed with ${q(str(c, "title-prefix"))}.`] : [];
/** Labels added to every created item. */
export const labels = (c: Cfg): string[] =>
  strs(c, "labels").length ? [`Labels ${quotedList(strs(c, "labels"))} will be automatically added.`] : [];
/** The title prefix an item must have to be closed. */
export const requiredPrefix = (c: Cfg, what: string): string[] =>
  str(c, "required-title-prefix")
    ? [`Only ${what} with title prefix ${q(str(c, "required-title-prefix"))} can be closed.`]
    : [];
/** The default project URL. */
export const project = (
  c: Cfg,
): string[] => (str(c, "project") ? [`Default project URL: ${q(str(c, "project"))}.`] : []);
