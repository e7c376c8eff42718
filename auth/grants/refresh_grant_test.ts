import assert from "node:assert/strict";
import { randomToken, sortableId } from "./refresh_grant.ts";

Deno.test("sortableId is 32 letters whose order follows the creation time, with a random tail", () => {
  const times = [0, 1, 51, 52, 1_700_000_000_000, 1_795_000_000_000, 1_795_000_000_001, 52 ** 8 - 1];
  const ids = times.map((t) => sortableId(t));
  for (const id of ids) assert.match(id, /^[A-Za-z]{32}$/);
  // Byte order (SQLite's BINARY collation) equals time order.
  assert.deepEqual([...ids].sort(), ids);
  assert.notEqual(sortableId(5).slice(8), sortableId(5).slice(8), "the tail is random");
  assert.equal(sortableId(5).slice(0, 8), "AAAAAAAF");
});

Deno.test("randomToken is 32 letters by default and never repeats in practice", () => {
  const seen = new Set(Array.from({ length: 1000 }, () => randomToken()));
  assert.equal(seen.size, 1000);
  for (const token of seen) assert.match(token, /^[A-Za-z]{32}$/);
  assert.match(randomToken(43), /^[A-Za-z]{43}$/);
});
