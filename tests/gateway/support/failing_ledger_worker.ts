/**
 * A stand-in for the ledger's writer thread whose every message ends in an error it does not catch (as when
 * the real writer's module or native client fails to load): for tests/gateway/ledger_writer_crash_test.ts.
 */
/// <reference lib="deno.worker" />
self.onmessage = () => {
  throw new Error("writer crashed");
};
