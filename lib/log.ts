/**
 * Structured logging: one JSON object per line, with secrets redacted by key name and by value shape so a
 * careless `log.info("x", { headers })` cannot leak a key.
 */

/** Log levels in increasing severity; `silent` disables output. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** A structured logger. */
export interface Logger {
  /** Logs at debug level. */
  debug(message: string, fields?: LogFields): void;
  /** Logs at info level. */
  info(message: string, fields?: LogFields): void;
  /** Logs at warn level. */
  warn(message: string, fields?: LogFields): void;
  /** Logs at error level. */
  error(message: string, fields?: LogFields): void;
  /** Returns a logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
  /**
   * True when lines of `level` are written (optional: absent means they may be), so a hot path can skip
   * building fields nobody reads.
   */
  enabled?(level: LogLevel): boolean;
}

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** Minimum level written. Defaults to `info`. */
  level?: LogLevel;
  /** Where finished lines go. Defaults to stdout (stderr for warn and error). */
  sink?: (line: string, level: LogLevel) => void;
  /** Clock, for tests. */
  now?: () => Date;
  /** Fields on every line (for example `{ service: "gateway" }`). */
  base?: LogFields;
}

/** Key names whose values are always replaced by `[redacted]`. */
const SECRET_KEY = /(secret|token|password|passwd|authorization|api[-_]?key|cookie|credential|private)/i;
/** Value shapes that look like credentials wherever they appear. */
const SECRET_VALUE = /^(bearer\s+\S+|basic\s+\S+|sk-[\w-]{8,}|sy_[\w-]{8,}|gh[pousr]_\w{10,})$/i;

/** Returns a copy of `value` with secret-looking keys and values replaced by `[redacted]`. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[depth]";
  if (typeof value === "string") return SECRET_VALUE.test(value.trim()) ? "[redacted]" : value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Headers) return redact(Object.fromEntries(value.entries()), depth);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) && inner !== undefined && inner !== null && inner !== ""
        ? "[redacted]"
        : redact(inner, depth + 1);
    }
    return out;
  }
  return value;
}

function defaultSink(line: string, level: LogLevel): void {
  if (level === "warn" || level === "error") console.error(line);
  else console.log(line);
}

/** Creates a JSON-lines logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = SEVERITY[options.level ?? "info"];
  const sink = options.sink ?? defaultSink;
  const now = options.now ?? (() => new Date());
  const base = options.base ?? {};

  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (SEVERITY[level] < threshold) return;
    const record = {
      time: now().toISOString(),
      level,
      msg: message,
      ...(redact({ ...base, ...fields }) as LogFields),
    };
    sink(JSON.stringify(record), level);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
    enabled: (level) => SEVERITY[level] >= threshold,
  };
}

/** A logger that writes nothing, for tests and libraries. */
export const silentLogger: Logger = createLogger({ level: "silent" });
