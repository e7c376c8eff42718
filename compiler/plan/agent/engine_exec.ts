/** What the harnessed engines' execution steps share: the AWF run script and `engine.command`'s script. */
import type { AgentInput } from "./input.ts";
import { lit, litBareBlanks } from "../../yaml/writer.ts";
import { awfScript } from "./awf_command.ts";
import { targetOf } from "../steps.ts";
import { cliProxyEnabled } from "./engine_tools.ts";
import { awfConfigInput, customMounts, extraAwfArgs } from "./engine_env.ts";

/** Lines writing `engine.command` into an executable script the harness runs instead of the CLI. */
export function engineCommandSetup(command: string): string[] {
  return [
    "mkdir -p /tmp/gh-aw",
    "umask 0177",
    "cat > /tmp/gh-aw/engine-command.sh <<'GH_AW_ENGINE_COMMAND_EOF'",
    "#!/usr/bin/env bash",
    "set -eo pipefail",
    `${command} "$@"`,
    "",
    "GH_AW_ENGINE_COMMAND_EOF",
    "chmod 700 /tmp/gh-aw/engine-command.sh",
  ];
}

/** The AWF run script of an agent engine: the workflow's firewall config, mounts and CLI proxy, plus the engine's part. */
export function agentAwfScript(
  agentInput: AgentInput,
  e: { setup: string[]; tty: boolean; exclude: string[]; command: string },
): ReturnType<typeof lit> {
  const script = awfScript({
    setup: e.setup,
    config: { ...awfConfigInput(agentInput), cliProxy: cliProxyEnabled(agentInput) },
    extraArgs: extraAwfArgs(agentInput),
    tty: e.tty,
    // `excluded-env` (releases that have it) hides the workflow's own choice of variables too.
    excludeEnv: [...e.exclude, ...(agentInput.frontmatter["excluded-env"] ?? [])],
    mounts: customMounts(agentInput),
    cliProxy: cliProxyEnabled(agentInput),
    command: e.command,
    // The docker-sbx microVM runtime is chosen on the command line (rootless releases).
    containerRuntime:
      targetOf(agentInput.ctx).jobs.agent.awf && agentInput.ctx.sandboxInfo?.agentRuntime === "docker-sbx"
        ? "sbx"
        : undefined,
  });
  // gh-aw writes the `engine.command` heredoc line by line: its closing empty line carries no indentation.
  const lines = script.split("\n");
  const bare = lines.flatMap((l, i) => l === "" && lines[i + 1] === "GH_AW_ENGINE_COMMAND_EOF" ? [i] : []);
  return bare.length > 0 ? litBareBlanks(script, bare) : lit(script);
}
