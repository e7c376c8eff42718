/** Values written the way gh-aw's Go code writes them (map order, float formatting). */

/** Job outputs render sorted by name (gh-aw writes them from a Go map). */
export function sortedRecord<T>(r: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(r).sort().map((k) => [k, r[k]]));
}

/** Go's `%.2f`: the exact binary value rounded half to even (0.125 → "0.12"). */
export function goFixed2(x: number): string {
  const scaled = x * 100;
  const floor = Math.floor(scaled);
  const r = scaled - floor === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return (r / 100).toFixed(2);
}
