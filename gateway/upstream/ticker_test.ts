import assert from "node:assert/strict";
import { Ticker } from "./ticker.ts";

Deno.test("a ticker calls every registered task and holds no timer once they are removed", async () => {
  const ticker = new Ticker(5);
  const counts = [0, 0, 0];
  const removers = counts.map((_, i) => ticker.add(() => counts[i]++));
  await new Promise((resolve) => setTimeout(resolve, 40));
  removers[0]();
  const first = counts[0];
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(counts[1] >= 2 && counts[2] >= 2, `each remaining task ran several times: ${counts}`);
  assert.equal(counts[0], first, "a removed task is not called again");
  removers[1]();
  assert.equal(ticker.running, true);
  removers[2]();
  assert.equal(ticker.running, false, "no timer without tasks");
});

Deno.test("a lazily stopping ticker keeps its interval across back-to-back tasks, then stops", async () => {
  const ticker = new Ticker(10, true);
  let runs = 0;
  ticker.add(() => runs++)();
  assert.equal(ticker.running, true, "the interval outlives its last task");
  const remove = ticker.add(() => runs++);
  await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(runs >= 1);
  remove();
  await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(ticker.running, false, "a tick without tasks stopped it");
});

Deno.test("tasks removed in any order, or while a tick runs, are never called again; the rest still are", async () => {
  const ticker = new Ticker(5);
  const counts = Array.from({ length: 6 }, () => 0);
  const slots = counts.map((_, i) =>
    ticker.insert(() => {
      counts[i]++;
      // Task 0 removes task 5 (later in the array) during the tick: task 5 must not run in that tick.
      if (i === 0) ticker.remove(slots[5]);
    })
  );
  ticker.remove(slots[2]);
  ticker.remove(slots[2]); // twice: nothing
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(counts[2], 0);
  assert.equal(counts[5], 0, "removed during the tick, before its turn");
  for (const i of [0, 1, 3, 4]) assert.ok(counts[i] >= 2, `task ${i} ran: ${counts}`);
  for (const i of [4, 0, 3]) ticker.remove(slots[i]);
  const before = counts[1];
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(counts[1] > before, "the one task left still runs");
  assert.equal(ticker.running, true);
  ticker.remove(slots[1]);
  assert.equal(ticker.running, false);
});
