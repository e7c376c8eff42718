/**
 * A deep copy of parsed YAML/JSON data (plain objects, arrays and scalars). structuredClone does the same
 * with the generality of the HTML clone algorithm and was 2% of a warm corpus compile, called for every
 * import of every workflow (bench:compiler profile); anything that is not plain data still goes to it.
 */
export function clonePlain<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(clonePlain) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = clonePlain(v);
  return out as T;
}
