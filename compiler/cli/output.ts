/** Text output of the CLI: results on stdout, messages and progress on stderr (progress only on a TTY). */
import type { Diagnostic } from "../api.ts";

/** Output sinks and helpers. */
export interface Output {
  /** Writes to stdout (results, `--json`). */
  out(text: string): void;
  /** Writes a line to stderr. */
  err(text: string): void;
  /** A warning line on stderr. */
  warn(text: string): void;
  /** Starts a progress counter on stderr; silent when stderr is not a terminal. */
  progress(label: string, total: number): Progress;
}

/** A running progress indicator. */
export interface Progress {
  /** Advances by one, naming the current item. */
  tick(item: string): void;
  /** Clears the line. */
  done(): void;
}

/** Raw writers. */
export interface OutputSinks {
  /** stdout writer. */
  stdout(text: string): void;
  /** stderr writer. */
  stderr(text: string): void;
  /** Whether stderr is an interactive terminal. */
  stderrIsTty: boolean;
}

/** Creates an {@link Output}. */
export function createOutput(sinks: OutputSinks): Output {
  return {
    out: (text) => sinks.stdout(text.endsWith("\n") ? text : text + "\n"),
    err: (text) => sinks.stderr(text.endsWith("\n") ? text : text + "\n"),
    warn: (text) => sinks.stderr(`warning: ${text}\n`),
    progress(label, total) {
      if (!sinks.stderrIsTty) return { tick() {}, done() {} };
      let count = 0;
      return {
        tick(item) {
          count++;
          sinks.stderr(`\r\x1b[2K${label} ${count}/${total} ${item}`.slice(0, 200));
        },
        done() {
          sinks.stderr("\r\x1b[2K");
        },
      };
    },
  };
}

/** An output capturing everything, for tests. */
export function captureOutput(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const output = createOutput({
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
    stderrIsTty: false,
  });
  return Object.assign(output, { stdout, stderr });
}

/** Renders a diagnostic as `file:line:col: severity: message` plus an indented hint. */
export function formatDiagnostic(d: Diagnostic): string {
  const head = `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
  return d.hint ? `${head}\n  hint: ${d.hint}` : head;
}
