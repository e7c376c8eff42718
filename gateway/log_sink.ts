/**
 * A log sink cheap enough to leave the access log on. `console.log` costs one synchronous write per line on
 * the request's path; this sink queues lines and writes them in one batch per event-loop turn, after the
 * response has been handed to the server. Warnings and errors are written at once, to stderr, after any
 * queued lines (so order is kept). Queued lines are flushed on `unload`.
 */
import type { LogLevel } from "@switchyard/lib/log.ts";

/** Something lines can be written to synchronously. */
export interface SyncWriter {
  /** Writes some of `bytes`, returning how many were written. */
  writeSync(bytes: Uint8Array): number;
}

/** A sink for `createLogger({ sink })` plus an explicit flush. */
export interface BatchedSink {
  /** The sink. */
  (line: string, level: LogLevel): void;
  /** Writes the queued lines now. */
  flush(): void;
}

const encoder = new TextEncoder();

function writeAll(writer: SyncWriter, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writer.writeSync(bytes.subarray(offset));
}

/** Creates a batching sink writing info/debug lines to `out` and warn/error lines to `err`. */
export function createBatchedSink(
  out: SyncWriter = Deno.stdout,
  err: SyncWriter = Deno.stderr,
  schedule: (flush: () => void) => void = (flush) => setTimeout(flush, 0),
): BatchedSink {
  let queued = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued === "") return;
    const text = queued;
    queued = "";
    writeAll(out, encoder.encode(text));
  };
  const sink = ((line: string, level: LogLevel) => {
    if (level === "warn" || level === "error") {
      flush();
      writeAll(err, encoder.encode(line + "\n"));
      return;
    }
    queued += line + "\n";
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  }) as BatchedSink;
  sink.flush = flush;
  return sink;
}
