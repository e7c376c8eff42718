import assert from "node:assert/strict";
import { isMapping, isObject, listOf, mappingOf, mappingsOf, objectOf } from "./values.ts";
import { splitSafeOutputs } from "./merge.ts";
import { SAFE_OUTPUT_GLOBAL_KEYS, SAFE_OUTPUT_KEYS, SAFE_OUTPUT_TYPE_KEYS } from "./frontmatter_keys.ts";

Deno.test("a mapping is an object that is not a list; objectOf keeps a list as an object check admits it", () => {
  assert.equal(isMapping({ a: 1 }), true);
  assert.equal(isMapping([1]), false);
  assert.equal(isMapping(null), false);
  assert.equal(isObject([1]), true);
  assert.deepEqual(mappingOf([1]), {});
  assert.deepEqual(objectOf(["x"]), ["x"]);
  assert.deepEqual(mappingOf("text"), {});
  const own = { k: "v" };
  assert.equal(mappingOf(own), own);
  assert.deepEqual(mappingsOf([{ a: 1 }, "b", null, [2]]), [{ a: 1 }]);
  assert.deepEqual(listOf("x"), []);
});

Deno.test("safe-outputs splits into global settings and type configs, every key of the table in one of them", () => {
  const split = splitSafeOutputs({
    "github-token": "t",
    "create-issue": null,
    jobs: { a: {} },
    "future-type": {},
  });
  assert.deepEqual(split.global, { "github-token": "t", jobs: { a: {} } });
  assert.deepEqual(split.types, { "create-issue": null, "future-type": {} });
  assert.equal(SAFE_OUTPUT_GLOBAL_KEYS.size + SAFE_OUTPUT_TYPE_KEYS.length, SAFE_OUTPUT_KEYS.length);
  for (const key of SAFE_OUTPUT_TYPE_KEYS) assert.equal(SAFE_OUTPUT_GLOBAL_KEYS.has(key), false);
});
