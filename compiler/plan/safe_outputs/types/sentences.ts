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

export const str = (c: Cfg, k: string): string => (typeof c[k] === "string" ? c[k] as string : "");
export const strs = (c: Cfg, k: string): string[] => {
  const v = c[k];
  if (typeof v === "string") return v ? [v] : [];
  return Array.isArray(v) ? v.map(String) : [];
};
export const flag = (c: Cfg, k: string): boolean => k in c && c[k] !== false;

/** One sentence-builder per tool: given the raw config and the effective max, the constraint sentences. */
export type Collector = (c: Cfg, max: number) => string[];

export function maxSentence(max: number, what: string): string[] {
  return max > 0 ? [`Maximum ${max} ${what}.`] : [];
}
export const target = (c: Cfg): string[] => (str(c, "target") ? [`Target: ${str(c, "target")}.`] : []);
export const inRepo = (c: Cfg, what: string): string[] => {
  const repo = str(c, "target-repo");
  return repo ? [`${what} in repository ${q(repo)}.`] : [];
};
export const allowedLabels = (c: Cfg): string[] => {
  const l = strs(c, "allowed-labels");
  return l.length ? [`Only these labels are allowed: ${quotedList(l)}.`] : [];
};
export const allowedFields = (c: Cfg): string[] => {
  const f = strs(c, "allowed-fields");
  if (!f.length) return [];
  return f.includes("*")
    ? ["Any issue field is allowed."]
    : [`Only these issue fields are allowed: ${quotedList(f)}.`];
};
export const titlePrefix = (c: Cfg): string[] =>
  str(c, "title-prefix") ? [`Title will be prefixed with ${q(str(c, "title-prefix"))}.`] : [];
export const labels = (c: Cfg): string[] =>
  strs(c, "labels").length ? [`Labels ${quotedList(strs(c, "labels"))} will be automatically added.`] : [];
export const requiredPrefix = (c: Cfg, what: string): string[] =>
  str(c, "required-title-prefix")
    ? [`Only ${what} with title prefix ${q(str(c, "required-title-prefix"))} can be closed.`]
    : [];
export const project = (
  c: Cfg,
): string[] => (str(c, "project") ? [`Default project URL: ${q(str(c, "project"))}.`] : []);
