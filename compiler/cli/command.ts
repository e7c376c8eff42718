/** The thin subcommand layer over `node:util` `parseArgs`: declared options, generated `--help`, exit codes. */
import { parseArgs } from "node:util";
import type { CliDeps } from "./context.ts";

/** Exit codes of every command. */
export const EXIT = { ok: 0, user: 1, usage: 2 } as const;

/** One declared option. */
export interface OptionSpec {
  /** `boolean` flag or `string` value. */
  type: "boolean" | "string";
  /** One-letter alias. */
  short?: string;
  /** May be repeated (values collected in a list). */
  multiple?: boolean;
  /** Help text. */
  description: string;
  /** Placeholder shown in help (`<dir>`). */
  value?: string;
  /** Allowed values of a string option. */
  choices?: string[];
}

/** Parsed arguments handed to a command. */
export interface ParsedArgs {
  /** Option values by name. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Positional arguments. */
  positionals: string[];
}

/** A subcommand. */
export interface Command {
  /** Subcommand name. */
  name: string;
  /** One-line summary for the command list. */
  summary: string;
  /** Usage line after `awc <name>` (e.g. `[workflow...]`). */
  usage: string;
  /** Longer description shown by `--help`. */
  description?: string;
  /** Declared options. */
  options: Record<string, OptionSpec>;
  /** Minimum and maximum number of positionals. */
  positionals: { min: number; max: number };
  /** Runs the command; returns the exit code. */
  run(args: ParsedArgs, deps: CliDeps): Promise<number>;
}

/** A usage mistake (exit 2). */
export class UsageError extends Error {}

/** Parses `argv` for `command`, throwing {@link UsageError} on unknown options or bad values. */
export function parseCommandArgs(command: Command, argv: string[]): ParsedArgs | "help" {
  const options: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [name, spec] of Object.entries(command.options)) {
    options[name] = { type: spec.type };
    if (spec.short) options[name].short = spec.short;
    if (spec.multiple) options[name].multiple = true;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(cleanParseError((error as Error).message));
  }
  if (parsed.values.help) return "help";
  for (const [name, spec] of Object.entries(command.options)) {
    const value = parsed.values[name];
    if (spec.choices && typeof value === "string" && !spec.choices.includes(value)) {
      throw new UsageError(`--${name} must be one of ${spec.choices.join(", ")} (got "${value}")`);
    }
  }
  const count = parsed.positionals.length;
  if (count < command.positionals.min) {
    throw new UsageError(`missing argument: awc ${command.name} ${command.usage}`);
  }
  if (count > command.positionals.max) {
    throw new UsageError(`unexpected argument "${parsed.positionals[command.positionals.max]}"`);
  }
  return { values: parsed.values as ParsedArgs["values"], positionals: parsed.positionals };
}

function cleanParseError(message: string): string {
  return message.replace(/\. To specify a positional argument.*$/s, "").replace(/^TypeError: /, "");
}

/** The `--help` text of one command. */
export function commandHelp(command: Command): string {
  const lines = [
    `Usage: awc ${command.name}${command.usage ? " " + command.usage : ""} [options]`,
    "",
    command.summary,
  ];
  if (command.description) lines.push("", command.description.trim());
  lines.push("", "Options:");
  const rows: [string, string][] = Object.entries(command.options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : "    "}--${name}${
      spec.type === "string" ? ` ${spec.value ?? "<value>"}` : ""
    }`;
    const choices = spec.choices ? ` (${spec.choices.join("|")})` : "";
    return [flag, spec.description + choices];
  });
  rows.push(["-h, --help", "Show this help"]);
  const width = Math.max(...rows.map(([f]) => f.length)) + 2;
  for (const [flag, text] of rows) lines.push(`  ${flag.padEnd(width)}${text}`);
  return lines.join("\n") + "\n";
}

/** `--dir`/`-d <path>`: the repository root, shared by every command that works in a repository. */
export const DIR_OPTION: OptionSpec = {
  type: "string",
  short: "d",
  value: "<path>",
  description: "Repository root (default: the git root)",
};
