/**
 * The engines, keyed by id, for the target a lock is compiled for. The one place an engine id selects code:
 * the shared builders ask `engineOf(config)` for the workflow's engine and read its facts and steps.
 */
import type { Engine } from "./contract.ts";
import type { EngineConfig, EngineTarget } from "./facts.ts";
import { DEFAULT_TARGET } from "../../targets/mod.ts";
import { antigravity } from "./antigravity.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { copilot } from "./copilot.ts";
import { crush } from "./crush.ts";
import { gemini } from "./gemini.ts";
import { opencode } from "./opencode.ts";
import { pi } from "./pi.ts";

/** The engines of the default target, in gh-aw's order. */
const ENGINES: Readonly<Record<string, Engine>> = {
  copilot,
  claude,
  codex,
  gemini,
  crush,
  opencode,
  pi,
  antigravity,
};

/** The default engine (`engine:` absent or unknown). */
export const DEFAULT_ENGINE_ID = "copilot";

/** Every engine id the registry knows, in its order. */
export const REGISTERED_ENGINE_IDS: readonly string[] = Object.keys(ENGINES);

/**
 * The engine `id` for `target` (the default engine when the id is unknown). A target whose engines differ
 * from the default's derives them here (`{ ...codex, version: … }`), so no builder branches on the target.
 */
export function engineFor(id: string, target: EngineTarget = DEFAULT_TARGET): Engine {
  let byId = DERIVED.get(target);
  if (!byId) DERIVED.set(target, byId = new Map());
  let engine = byId.get(id);
  if (!engine) byId.set(id, engine = derive(id, target));
  return engine;
}

/** The engines already derived, per target and id (engines are read on every step built). */
const DERIVED = new WeakMap<EngineTarget, Map<string, Engine>>();

/** The engine `id` as `target`'s release ships it. */
function derive(id: string, target: EngineTarget): Engine {
  const engine = ENGINES[id] ?? ENGINES[DEFAULT_ENGINE_ID];
  const release = target.engines[engine.id];
  if (!release) return engine;
  // The engine as the target's release ships it (e.g. v0.87.4's Copilot CLI 1.0.80 and `auto` model).
  const derived: Engine = {
    ...engine,
    ...(release.version && engine.version ? { version: release.version } : {}),
    ...(release.defaultModel ? { defaultModel: release.defaultModel } : {}),
    ...(release.instructionFiles ? { instructionFiles: [...release.instructionFiles] } : {}),
  };
  // Step differences are the engine module's own (`forRelease`), asked once here.
  return engine.forRelease ? { ...derived, ...engine.forRelease(release, target) } : derived;
}

/** The ids of the engines (of `target`) for which `test` holds, in the registry's order. */
export function enginesWith(
  test: (engine: Engine) => boolean,
  target: EngineTarget = DEFAULT_TARGET,
): string[] {
  return REGISTERED_ENGINE_IDS.filter((id) => test(engineFor(id, target)));
}

/** The engine of a resolved engine configuration. */
export function engineOf(config: Pick<EngineConfig, "info" | "target">): Engine {
  return engineFor(config.info.id, config.target);
}
