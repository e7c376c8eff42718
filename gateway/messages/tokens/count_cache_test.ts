import assert from "node:assert/strict";
import { BUCKET_SIZE, CountCache, fingerprintOf } from "./count_cache.ts";

Deno.test("CountCache: strings that share a fingerprint never share a count, and do not evict each other", () => {
  const a = "x".repeat(1_000);
  const b = "x".repeat(20) + "y" + "x".repeat(979); // index 20 is not among the sampled places of 1,000 units
  assert.equal(fingerprintOf(a), fingerprintOf(b)); // the collision this test is about
  const cache = new CountCache();
  let counted = 0;
  const count = (text: string) => (counted++, text === a ? 1 : 2);
  assert.equal(cache.get(a, count), 1);
  assert.equal(cache.get(b, count), 2); // not a's count
  assert.equal(cache.get(b, count), 2);
  assert.equal(cache.get(a, count), 1);
  assert.equal(counted, 2); // both kept side by side
  assert.deepEqual(cache.size, { entries: 2, chars: 2_000 });
});

Deno.test("CountCache: a bucket keeps the newest BUCKET_SIZE strings of one fingerprint", () => {
  // Same length, same sampled places (16 at each end, every 4th unit of a 128-unit string): index 17 differs.
  const texts = Array.from(
    { length: BUCKET_SIZE + 2 },
    (_, i) => "a".repeat(17) + String.fromCharCode(0x4e00 + i) + "a".repeat(110),
  );
  assert.equal(new Set(texts.map(fingerprintOf)).size, 1);
  const cache = new CountCache();
  let counted = 0;
  for (const [i, text] of texts.entries()) assert.equal(cache.get(text, () => (counted++, i)), i);
  assert.deepEqual(cache.size, { entries: BUCKET_SIZE, chars: BUCKET_SIZE * 128 });
  for (const [i, text] of texts.entries()) assert.equal(cache.get(text, () => (counted++, i)), i);
  // The two oldest were dropped: counted again (and they push out two more, in turn).
  assert.ok(counted >= texts.length + 2, String(counted));
  assert.deepEqual(cache.size, { entries: BUCKET_SIZE, chars: BUCKET_SIZE * 128 });
});

Deno.test("CountCache: a hit needs the same string, not only the same length and ends", () => {
  const cache = new CountCache();
  const texts = Array.from({ length: 200 }, (_, i) => `start ${"-".repeat(i % 7)}${i} middle ${i * 31} end`);
  for (const [i, text] of texts.entries()) assert.equal(cache.get(text, () => i), i);
  for (const [i, text] of texts.entries()) {
    assert.equal(cache.get(String(text.split("").join("")), () => -1), i); // an equal string built anew hits
  }
  assert.equal(cache.hits, 200);
});

Deno.test("CountCache: a string longer than the budget is counted and not kept", () => {
  const cache = new CountCache(100, 10);
  assert.equal(cache.get("z".repeat(101), (text) => text.length), 101);
  assert.deepEqual(cache.size, { entries: 0, chars: 0 });
});
