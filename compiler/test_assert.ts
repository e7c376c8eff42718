/** Tiny assertion helpers over `node:assert/strict` (JSR's std is not reachable). */
import assertMod from "node:assert/strict";

/** Asserts strict deep equality. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (msg === undefined) assertMod.deepStrictEqual(actual, expected);
  else assertMod.deepStrictEqual(actual, expected, msg);
}

/** Asserts the values differ. */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (msg === undefined) assertMod.notDeepStrictEqual(actual, expected);
  else assertMod.notDeepStrictEqual(actual, expected, msg);
}

/** Asserts a truthy value. */
export function assert(value: unknown, msg?: string): asserts value {
  if (msg === undefined) assertMod.ok(value);
  else assertMod.ok(value, msg);
}

/** Asserts that `text` contains `part`. */
export function assertIncludes(text: string, part: string, msg?: string): void {
  assertMod.ok(text.includes(part), msg ?? `expected text to include ${JSON.stringify(part)}`);
}
