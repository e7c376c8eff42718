import assert from "node:assert/strict";
import { createBatchedSink, type SyncWriter } from "./log_sink.ts";

function recorder(chunk = Infinity): SyncWriter & { text: () => string; writes: number } {
  const parts: Uint8Array[] = [];
  const w = {
    writes: 0,
    writeSync(bytes: Uint8Array) {
      w.writes++;
      const n = Math.min(chunk, bytes.length);
      parts.push(bytes.slice(0, n));
      return n;
    },
    text: () => new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p]))),
  };
  return w;
}

Deno.test("info lines are queued and written in one batch when the scheduled flush runs", () => {
  const out = recorder();
  const err = recorder();
  let pending: (() => void) | undefined;
  const sink = createBatchedSink(out, err, (f) => (pending = f));
  sink("a", "info");
  sink("b", "info");
  assert.equal(out.writes, 0, "nothing is written on the request's path");
  pending!();
  assert.equal(out.writes, 1);
  assert.equal(out.text(), "a\nb\n");
});

Deno.test("a warning flushes queued lines first and goes to stderr at once", () => {
  const out = recorder();
  const err = recorder();
  const sink = createBatchedSink(out, err, () => {});
  sink("a", "info");
  sink("w", "warn");
  assert.equal(out.text(), "a\n");
  assert.equal(err.text(), "w\n");
});

Deno.test("partial writes are continued until the whole batch is written", () => {
  const out = recorder(3);
  const sink = createBatchedSink(out, recorder(), () => {});
  sink("hello world", "info");
  sink.flush();
  assert.equal(out.text(), "hello world\n");
  assert.ok(out.writes > 1);
});
