/**
 * The `Engine` every module of this folder exports: its facts (`./facts.ts`) plus the steps only it knows —
 * the agent job's run of its CLI inside the firewall and the threat-detection job's review with the same CLI.
 * The shared job builders ask the registry (`./registry.ts`) for the engine and never compare engine ids.
 */
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import type { YValue } from "../../yaml/writer.ts";
import type { DetectionInput } from "./review.ts";
import type { EngineFacts, EngineTarget } from "./facts.ts";
import type { EngineRelease } from "../../targets/target.ts";

/** What an engine's detection environment is built from. */
export interface DetectionEnvInput {
  d: DetectionInput;
  /** The model (`provider/model` for the provider CLIs; the detection model variable when unset). */
  model: string;
  /** The provider whose credentials a provider CLI gets (`copilot` without a prefix). */
  provider: string;
}

/** How the engine's CLI reviews the agent's output in the threat-detection job. */
export interface EngineDetection {
  /** Whether Node.js is set up first (Antigravity's CLI is a native binary). */
  needsNode: boolean;
  /** Whether the firewall images are pulled with the preparation (Codex pulls them after its install). */
  imagesFirst: boolean;
  /** The steps installing the CLI and its config, the AWF binary's step (`awf`) among them. */
  installSteps(d: DetectionInput, awf: StepPlan): StepPlan[];
  /** Comments and timeout the execution step carries before its `run:` (Claude's tools, Copilot's header). */
  decorate?(exec: StepPlan): void;
  /** The hosts the review reaches. */
  domains(model: string): string[];
  /** The API proxy's upstream targets, when the engine's API is not one of its defaults. */
  apiTargets?: Record<string, unknown>;
  /** Lines run before the firewall starts (step summary, Codex's schema, Copilot's node binary). */
  setup: string[];
  /** The CLI's command inside the firewall. */
  command(model: string): string;
  /** The firewall's `--env-all`/`--exclude-env` arguments (`byok`: a BYOK Copilot holds no Copilot token). */
  envArgs(byok: boolean): string;
  /** The execution step's environment. */
  env(input: DetectionEnvInput): Record<string, YValue>;
}

/** One engine: its facts, the agent job's steps around its CLI, and its threat review. */
export interface Engine extends EngineFacts {
  /** Steps right after the CLI's install (Crush verifies it). */
  afterInstall?: StepPlan[];
  /** The step(s) running the CLI inside the firewall (config written first where the CLI needs one). */
  execute(a: AgentInput): StepPlan[];
  /** Steps right after the run, before the logs are parsed (Copilot's session state). */
  afterRun?(a: AgentInput): StepPlan[];
  /** Steps before the agent artifact is bundled (Gemini's and Antigravity's error reports moved). */
  preBundle?(a: AgentInput): StepPlan[];
  detection: EngineDetection;
  /**
   * The engine as `target`'s release ships it, where the difference is in its steps (the registry has
   * already applied the release's version, model and instruction files): the fields that change.
   */
  forRelease?(release: EngineRelease, target: EngineTarget): Partial<Engine>;
}
