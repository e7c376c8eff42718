/** Helpers shared by the engines' execution steps: common env, secrets to hide, AWF inputs. */
import type { AgentInput } from "./input.ts";
import { dq, plain, Styled, type YValue } from "../../yaml/writer.ts";
import { cliProxyEnabled, effectiveTools, mcpSecretEnv } from "./engine_tools.ts";
import type { AwfConfigInput } from "./awf_command.ts";
import { ghAwVersion, targetOf } from "../steps.ts";
import { type EngineAuth, engineAuthEnv } from "../engine_auth.ts";
import { mappingOf } from "../../source/values.ts";

export { OIDC_REQUEST_ENV } from "../engine_auth.ts";

/** Git identity of commits made by the agent. */
export const GIT_IDENTITY: Record<string, YValue> = {
  GIT_AUTHOR_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_AUTHOR_NAME: plain("github-actions[bot]"),
  GIT_COMMITTER_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_COMMITTER_NAME: plain("github-actions[bot]"),
};

/** Token expression of the GitHub MCP server unless `tools.github.github-token` is set. */
export const DEFAULT_GITHUB_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** Token of the `gh` CLI proxy. */
export const CLI_PROXY_TOKEN = "${{ secrets.GH_AW_GITHUB_TOKEN || github.token }}";

/** Prompt file the engines read. */
export const PROMPT = "/tmp/gh-aw/aw-prompts/prompt.txt";

/** Step summary file the engines append to. */
export const STEP_SUMMARY = "/tmp/gh-aw/agent-step-summary.md";

/** Sorts an env map by key (gh-aw writes engine env blocks sorted). */
export function sorted(env: Record<string, YValue>): Record<string, YValue> {
  return Object.fromEntries(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Env shared by every engine's execution step (before the engine-specific additions). */
export function commonEnv(
  agentInput: AgentInput,
  tools: Record<string, unknown>,
  mcpEnv = true,
): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_PHASE: "agent",
    GH_AW_PROMPT: PROMPT,
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GH_AW_VERSION: ghAwVersion(agentInput.ctx),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: STEP_SUMMARY,
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    ...GIT_IDENTITY,
  };
  if (agentInput.safeOutputs.staged) env.GH_AW_SAFE_OUTPUTS_STAGED = plain("true");
  if (agentInput.safeOutputs.types.includes("upload-asset")) {
    const u = mappingOf(agentInput.safeOutputs.configs["upload-asset"]);
    env.GH_AW_ASSETS_BRANCH = dq(String(u.branch ?? "assets/${{ github.workflow }}"));
    env.GH_AW_ASSETS_MAX_SIZE_KB = plain(String(u["max-size"] ?? 10240));
    env.GH_AW_ASSETS_ALLOWED_EXTS = dq(
      (Array.isArray(u["allowed-exts"]) ? u["allowed-exts"] : [".png", ".jpg", ".jpeg", ".svg"]).join(","),
    );
  }
  if (tools.github !== undefined && mcpEnv) {
    const token = mappingOf(tools.github)["github-token"];
    env.GITHUB_MCP_SERVER_TOKEN = plain(typeof token === "string" ? token : DEFAULT_GITHUB_TOKEN);
  }
  if (mcpEnv) { for (const [k, v] of Object.entries(mcpSecretEnv(agentInput))) env[k] = plain(v); }
  if (cliProxyEnabled(agentInput)) env.GH_TOKEN = plain(CLI_PROXY_TOKEN);
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  return env;
}

/** Names of env vars holding secrets, hidden from the agent container. */
export function secretNames(env: Record<string, YValue>): string[] {
  return Object.entries(env).filter(([, v]) =>
    String(v instanceof Styled ? v.value : v).includes("${{ secrets.")
  )
    .map(([k]) => k);
}

/** The agent's tools with gh-aw's defaults applied. */
export function agentTools(agentInput: AgentInput): Record<string, unknown> {
  return effectiveTools(
    agentInput.merged.tools,
    agentInput.safeOutputs.types,
    agentInput.frontmatter.tools,
  );
}

/** The AWF config inputs of the workflow (domains, API-proxy limits). */
export function awfConfigInput(agentInput: AgentInput): AwfConfigInput {
  const fm = agentInput.frontmatter;
  const num = (
    v: unknown,
  ) => (typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? +v : undefined);
  return {
    allowDomains: agentInput.allowedDomains,
    blockDomains: agentInput.blockedDomains,
    // `max-turns` (later gh-aw) and its deprecated alias `max-runs` set the same AWF cap; the new name wins.
    maxRuns: fm["max-turns"] ?? fm["max-runs"],
    maxEffectiveTokens: num(fm["max-effective-tokens"]),
    firewall: agentInput.ctx.firewall,
    models: agentInput.ctx.models,
    style: targetOf(agentInput.ctx).jobs.agent.awf,
    maxAiCredits: num(fm["max-ai-credits"]),
    maxCacheMisses: fm["max-turn-cache-misses"],
    imageDigests: agentInput.firewallDigests,
    containerExtra: runtimeContainer(agentInput),
  };
}

/**
 * The AWF config's `container` settings of `sandbox.agent.runtime` (releases that run the firewall rootless):
 * gVisor as the container runtime; the docker-sbx microVM bounds the agent by the step's timeout.
 */
function runtimeContainer(agentInput: AgentInput): Record<string, unknown> | undefined {
  if (!targetOf(agentInput.ctx).jobs.agent.awf) return undefined;
  const runtime = agentInput.ctx.sandboxInfo?.agentRuntime;
  if (runtime === "gvisor") return { containerRuntime: "gvisor" };
  if (runtime === "docker-sbx") {
    const t = agentInput.timeoutMinutes;
    return typeof t === "number" ? { agentTimeout: t } : undefined;
  }
  return undefined;
}

/** Extra AWF arguments: upload-artifact staging mount, service ports. */
export function extraAwfArgs(agentInput: AgentInput): string[] {
  const out: string[] = [];
  if (agentInput.safeOutputs.types.includes("upload-artifact")) {
    out.push(
      '--mount "${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts:${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts:rw"',
    );
  }
  const ports: string[] = [];
  for (const [id, svc] of Object.entries(agentInput.frontmatter.services ?? {})) {
    for (const p of svc.ports ?? []) {
      const container = String(p).split(":").at(-1)!.split("/")[0];
      ports.push(`\${{ job.services['${id}'].ports['${container}'] }}`);
    }
  }
  if (ports.length) out.push(`--allow-host-service-ports "${ports.join(",")}"`);
  return out;
}

/** Custom `--mount` arguments of `sandbox.agent.mounts` (sorted). */
export function customMounts(agentInput: AgentInput): string[] {
  const mounts = mappingOf(mappingOf(mappingOf(agentInput.frontmatter.sandbox).agent)).mounts;
  return Array.isArray(mounts) ? mounts.map(String).sort().map((m) => `--mount ${m}`) : [];
}

/** Tool-timeout env shared by engines: `tools.timeout` seconds (default 60). */
export function toolTimeout(agentInput: AgentInput): number | undefined {
  const t = agentInput.merged.tools.timeout;
  return typeof t === "number" ? t : typeof t === "string" && /^\d+$/.test(t) ? +t : undefined;
}

/** The firewall step's federation variables (`engine.auth`), as YAML values (an expression stays plain). */
export function federationEnv(auth: EngineAuth): Record<string, YValue> {
  return Object.fromEntries(
    Object.entries(engineAuthEnv(auth)).map(([k, v]) => [k, v.startsWith("${{") ? plain(v) : v]),
  );
}
