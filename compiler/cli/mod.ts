/** The `awc` command line: dispatches to subcommands and maps outcomes to exit codes 0/1/2. */
import { type Command, commandHelp, EXIT, parseCommandArgs, UsageError } from "./command.ts";
import type { CliDeps } from "./context.ts";
import { GitHubError } from "../github/client.ts";
import { compileCommand } from "../commands/compile.ts";
import { initCommand } from "../commands/init.ts";
import { updateActionsCommand } from "../commands/update_actions.ts";
import { upgradeCommand } from "../commands/upgrade.ts";
import { logsCommand } from "../commands/logs.ts";
import { auditCommand } from "../commands/audit.ts";
import { dispatchCommand } from "../commands/dispatch.ts";

/** Every subcommand, in help order. */
export const COMMANDS: readonly Command[] = [
  compileCommand,
  initCommand,
  updateActionsCommand,
  upgradeCommand,
  logsCommand,
  auditCommand,
  dispatchCommand,
];

function mainHelp(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    `awc ${version}: compiles agentic workflow Markdown into GitHub Actions lock files`,
    "",
    "Usage: awc <command> [options]   (also `gh awc <command>`)",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    `  ${"version".padEnd(width)}Print the version`,
    "",
    "Run `awc <command> --help` for the options of a command.",
    "Exit codes: 0 success, 1 the command failed, 2 usage error.",
    "",
  ].join("\n");
}

/** Runs `awc` with `argv` (without the program name); returns the exit code. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    deps.output.out(topic ? commandHelp(topic) : mainHelp(deps.version));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "version" || name === "--version" || name === "-V") {
    deps.output.out(`awc ${deps.version}`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const guess = COMMANDS.find((c) => c.name.startsWith(name.slice(0, 3)));
    deps.output.err(`error: unknown command "${name}"${guess ? `; did you mean "${guess.name}"?` : ""}`);
    deps.output.err("Run `awc --help` for the list of commands.");
    return EXIT.usage;
  }
  try {
    const parsed = parseCommandArgs(command, rest);
    if (parsed === "help") {
      deps.output.out(commandHelp(command));
      return EXIT.ok;
    }
    return await command.run(parsed, deps);
  } catch (error) {
    if (error instanceof UsageError) {
      deps.output.err(`error: ${error.message}\nRun \`awc ${command.name} --help\` for usage.`);
      return EXIT.usage;
    }
    if (error instanceof GitHubError) {
      deps.output.err(`error: ${error.message}`);
      return EXIT.user;
    }
    throw error;
  }
}
