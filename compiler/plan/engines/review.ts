/**
 * What the engines' threat reviews share: the job's inputs, where the review's files go, the guard every step
 * after the preparation runs under, the command-line prefixes of the CLIs inside the firewall, the image pulls,
 * the settings-merge step and the environment every review is told about its phase. Each engine's own review
 * is the `detection` of its module (`./<id>.ts`).
 */
import { type EngineAuth } from "../engine_auth.ts";
import { firewallImage, pinnedImagesStep } from "../../source/sandbox.ts";
import { ghAwVersion, type JobCtx, shStep } from "../steps.ts";
import type { StepPlan } from "../types.ts";
import { lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { settingsMergeScript } from "../agent/engine_config_files.ts";
import { federationEnv } from "../agent/engine_env.ts";

/** Inputs of the threat-detection job. */
export interface DetectionInput {
  ctx: JobCtx;
  description: string;
  setupNodeRef: string;
  model?: string;
  /** The reviewing engine's id (the workflow's own engine). */
  engine: string;
  /** Seeds codex's heredoc delimiters. */
  frontmatterHash: string;
  /** The engine's workload identity federation, which the review uses too. */
  auth?: EngineAuth;
  /** A BYOK Copilot's `engine.env`: the review talks to the same provider, without the Copilot token. */
  byokEnv?: Record<string, string>;
  /** Digests of the firewall images by role (`actions-lock.json`), for a release that lists them. */
  firewallDigests?: Readonly<Record<string, string>>;
}

/** Where the review's inputs (prompt, agent output, patches) are copied. */
export const DETECTION_DIR = "/tmp/gh-aw/threat-detection";

/** The prompt file every review reads. */
export const DETECTION_PROMPT = "/tmp/gh-aw/aw-prompts/prompt.txt";

/** The condition of every step after the preparation: the guard found something to review. */
export const GUARD = plain("always() && steps.detection_guard.outputs.run_detection == 'true'");

/** The tool-cache PATH set-up every review's command starts with. */
export const TOOL_PATH =
  `GH_AW_TOOL_CACHE="\${RUNNER_TOOL_CACHE:-/opt/hostedtoolcache}"; export PATH="$(find "$GH_AW_TOOL_CACHE" /opt/hostedtoolcache /home/runner/work/_tool -maxdepth 5 -type d -name bin 2>/dev/null | tr '\\''\\n'\\'' '\\'':'\\'')$PATH"; [ -n "$GOROOT" ] && export PATH="$GOROOT/bin:$PATH" || true`;

/** The prefix of the reviews run through a Node.js harness (Copilot, Claude, Codex): the harness's folder. */
export const NODE_HARNESS = TOOL_PATH +
  ` && GH_AW_NODE_EXEC="\${GH_AW_NODE_BIN:-}"; if [ -z "$GH_AW_NODE_EXEC" ] || [ ! -x "$GH_AW_NODE_EXEC" ]; then GH_AW_NODE_EXEC="$(command -v node 2>/dev/null || true)"; fi; if [ -z "$GH_AW_NODE_EXEC" ]; then echo "node runtime missing on this runner — check runtimes.node in workflow YAML" >&2; exit 127; fi; "$GH_AW_NODE_EXEC" \${RUNNER_TEMP}/gh-aw/actions/`;

/** The step-summary file the reviews touch first. */
export const TOUCH_SUMMARY = "touch /tmp/gh-aw/agent-step-summary.md";

/** Pulls the firewall images (and `extra`), then the pinned images' check when the sandbox pins them. */
export function imageSteps(ctx: JobCtx, extra: string[]): StepPlan[] {
  const images = [
    ...(["agent", "api-proxy", "squid"] as const).map((r) => firewallImage(ctx.firewall, r)),
    ...extra,
  ];
  const pinned = pinnedImagesStep(ctx.firewall);
  return [
    shStep("Download container images", "download_docker_images", images.join(" ")),
    ...(pinned ? [{ name: pinned.name, run: lit(pinned.run) }] : []),
  ];
}

/** A read-only settings file (`config`, JSON) merged into the CLI's `<dir>/settings.json` before the review. */
export function settingsStep(cli: string, dir: string, config: string): StepPlan {
  const envName = `GH_AW_${cli.toUpperCase()}_BASE_CONFIG`;
  return {
    name: `Write ${cli} Config`,
    if: GUARD,
    "continue-on-error": true,
    run: lit(settingsMergeScript(dir, envName)),
    env: { [envName]: sq(config) },
  };
}

/** What every detection run is told about its phase, prompt and gh-aw version. */
export function phaseEnv(d: DetectionInput): Record<string, YValue> {
  return {
    GH_AW_PHASE: "detection",
    GH_AW_PROMPT: DETECTION_PROMPT,
    GH_AW_VERSION: ghAwVersion(d.ctx),
  };
}

/** The commit identity of anything the review writes (gh-aw's bot). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_AUTHOR_NAME: plain("github-actions[bot]"),
  GIT_COMMITTER_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_COMMITTER_NAME: plain("github-actions[bot]"),
};

/** Keys sorted as gh-aw writes a sorted env. */
export function sortedEnv(env: Record<string, YValue>): Record<string, YValue> {
  return Object.fromEntries(Object.keys(env).sort().map((k) => [k, env[k]]));
}

/** The API-key secrets a federated review no longer reads. */
const ENGINE_KEYS = ["ANTHROPIC_API_KEY", "GEMINI_API_KEY"];

/** A detection env with the engine's API key replaced by its federation variables (sorted as gh-aw writes). */
export function federatedEnv(env: Record<string, YValue>, auth: EngineAuth): Record<string, YValue> {
  const out: Record<string, YValue> = { ...federationEnv(auth) };
  for (const [k, v] of Object.entries(env)) if (!ENGINE_KEYS.includes(k)) out[k] = v;
  return sortedEnv(out);
}
