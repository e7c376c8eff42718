/**
 * Narrowing of YAML values whose shape the schema leaves open (user steps, trigger settings, tool and server
 * maps): the one place a value read from the frontmatter becomes a mapping or a list, so planners neither cast
 * nor repeat `typeof … === "object"` checks.
 */

/** A YAML mapping, its values as written. */
export type Mapping<T = unknown> = Record<string, T>;

/** Whether `v` is a mapping (an object that is not a list). */
export function isMapping(v: unknown): v is Mapping {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `v` is any object (a mapping or a list: what a bare `typeof v === "object"` check admits). */
export function isObject(v: unknown): v is Mapping {
  return typeof v === "object" && v !== null;
}

/** `v` as a mapping; an empty one for anything else (a list, a scalar, null). */
export function mappingOf<T = unknown>(v: unknown): Mapping<T> {
  return (isMapping(v) ? v : {}) as Mapping<T>;
}

/** `v` as an object's entries (a list's by index, as an object check admits it); an empty mapping otherwise. */
export function objectOf<T = unknown>(v: unknown): Mapping<T> {
  return (isObject(v) ? v : {}) as Mapping<T>;
}

/** `v` as a mapping, or undefined when it is not one. */
export function mappingOrUndefined<T = unknown>(v: unknown): Mapping<T> | undefined {
  return isMapping(v) ? v as Mapping<T> : undefined;
}

/** `v` as a list of mappings (its items that are not mappings dropped); empty unless a list. */
export function mappingsOf<T = unknown>(v: unknown): Mapping<T>[] {
  return Array.isArray(v) ? v.filter(isMapping) as Mapping<T>[] : [];
}

/** `v` as a list; empty unless it is one. */
export function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
