import { assert, assertEquals } from "../test_assert.ts";
import { clonePlain } from "./clone_plain.ts";

Deno.test("clonePlain copies nested plain data; changing the copy leaves the original alone", () => {
  const original = { a: [1, { b: "x", c: null }], d: { e: true, f: [[2]] } };
  const copy = clonePlain(original);
  assertEquals(copy, original);
  (copy.a[1] as { b: string }).b = "changed";
  copy.d.f[0].push(3);
  assertEquals((original.a[1] as { b: string }).b, "x");
  assertEquals(original.d.f, [[2]]);
  const when = new Date(0);
  const withDate = clonePlain({ when });
  assert(withDate.when instanceof Date && withDate.when !== when, "other objects are cloned structurally");
});
