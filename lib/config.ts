/**
 * Configuration reading: each service describes its whole configuration as one zod schema over the
 * environment, and {@link readConfig} validates it once at start-up, reporting every bad key together.
 */
import { z } from "zod";
import { AppError } from "./errors.ts";

/** A flat map of environment variables, as from `Deno.env.toObject()`. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One problem with one configuration key. */
export interface ConfigProblem {
  /** The environment variable (or config path) at fault. */
  key: string;
  /** What is wrong and what was expected. */
  message: string;
}

/** Thrown when configuration is invalid; its message lists every problem, one per line. */
export class ConfigError extends AppError {
  /** Every problem found, in key order. */
  readonly problems: readonly ConfigProblem[];

  constructor(problems: ConfigProblem[], source = "configuration") {
    const lines = problems.map((p) => `  - ${p.key}: ${p.message}`);
    super("CONFIG_INVALID", `Invalid ${source}:\n${lines.join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/**
 * Validates `env` against `schema` and returns the frozen result, or throws a {@link ConfigError} naming
 * every offending key. Empty strings count as unset so `KEY=` in an env file means "use the default".
 */
export function readConfig<S extends z.ZodType>(schema: S, env: Env, source?: string): Readonly<z.output<S>> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => ({
      key: issue.path.map(String).join(".") || "(root)",
      message: issue.message,
    }));
    problems.sort((a, b) => a.key.localeCompare(b.key));
    throw new ConfigError(problems, source);
  }
  return Object.freeze(result.data) as Readonly<z.output<S>>;
}

/** A TCP port given as a decimal string, 0 (any free port) to 65535. */
export function portSetting(defaultPort: number) {
  return z.string()
    .default(String(defaultPort))
    .transform((raw, ctx) => {
      const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        ctx.addIssue({
          code: "custom",
          message: `expected a port number 0-65535, got ${JSON.stringify(raw)}`,
        });
        return z.NEVER;
      }
      return port;
    });
}

/** The URL schemes a libSQL database URL may use. */
const DATABASE_SCHEMES = ["file:", "libsql:", "https:", "http:", "ws:", "wss:"];

/** A libSQL database URL: `file:` locally, `libsql://`/`https://` remotely. */
export function databaseUrlSetting(defaultUrl?: string) {
  const base = defaultUrl === undefined ? z.string({ error: "is required" }) : z.string().default(defaultUrl);
  return base.refine((raw) => isDatabaseUrl(raw), {
    error: (issue) =>
      `expected a libSQL database URL (file:path, libsql://host or https://host), got ${
        JSON.stringify(issue.input)
      }`,
  });
}

/** True when `raw` is a URL a libSQL client can open. */
export function isDatabaseUrl(raw: string): boolean {
  if (raw.startsWith("file:")) return raw.length > "file:".length;
  try {
    const url = new URL(raw);
    return DATABASE_SCHEMES.includes(url.protocol) && url.hostname !== "";
  } catch {
    return false;
  }
}

/** An absolute http(s) URL without a trailing slash. */
export function httpUrlSetting(defaultUrl?: string) {
  const base = defaultUrl === undefined ? z.string({ error: "is required" }) : z.string().default(defaultUrl);
  return base.transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({
        code: "custom",
        message: `expected an absolute http(s) URL, got ${JSON.stringify(raw)}`,
      });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: `expected an http or https URL, got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    return raw.replace(/\/+$/, "");
  });
}

/** The log levels understood by `LOG_LEVEL`. */
export const logLevelSetting = z.enum(["debug", "info", "warn", "error", "silent"], {
  error: (issue) => `expected one of debug, info, warn, error, silent, got ${JSON.stringify(issue.input)}`,
}).default("info");

/** True when a raw flag value reads as on (`1`, `true`, `yes`, `on`, any case); cross-key checks of raw env use it. */
export function isFlagOn(raw: string | undefined): boolean {
  return ["1", "true", "yes", "on"].includes((raw ?? "").toLowerCase());
}

/** A boolean flag given as `1`/`0`/`true`/`false`/`yes`/`no`. */
export function flagSetting(defaultValue: boolean) {
  return z.string().default(String(defaultValue)).transform((raw, ctx) => {
    const value = raw.toLowerCase();
    if (isFlagOn(value)) return true;
    if (["0", "false", "no", "off"].includes(value)) return false;
    ctx.addIssue({ code: "custom", message: `expected true or false, got ${JSON.stringify(raw)}` });
    return z.NEVER;
  });
}
