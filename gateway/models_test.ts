import assert from "node:assert/strict";
import { buildCatalogue, type ModelInfo, pageOf } from "./models.ts";

const catalogue: ModelInfo[] = buildCatalogue(
  [],
  { models: ["a", "b", "c", "d", "e"].map((id) => ({ id })) },
  () => true,
);

function page(query: string) {
  return pageOf(catalogue, new URLSearchParams(query)) as { data: ModelInfo[]; has_more: boolean };
}

Deno.test("model pages follow after_id to the end and then stop", () => {
  const seen: string[] = [];
  let query = "limit=2";
  for (let i = 0; i < 10; i++) {
    const p = page(query);
    seen.push(...p.data.map((m) => m.id));
    if (!p.has_more) break;
    query = `limit=2&after_id=${p.data.at(-1)!.id}`;
  }
  assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
});

Deno.test("before_id pages backwards and an unknown cursor gives an empty last page", () => {
  assert.deepEqual(page("limit=2&before_id=e").data.map((m) => m.id), ["c", "d"]);
  assert.equal(page("limit=2&before_id=e").has_more, true);
  const unknown = page("after_id=zzz") as { data: ModelInfo[]; has_more: boolean; first_id: unknown };
  assert.deepEqual(unknown.data, []);
  assert.equal(unknown.has_more, false);
  assert.equal(unknown.first_id, null);
});

Deno.test("an out-of-range limit is an invalid_request_error", () => {
  assert.throws(() => page("limit=0"), /limit/);
});
