/**
 * The `safe-outputs:` section split when the source is loaded: the safe-outputs job's global settings (typed
 * where the planners read them) and each safe-output type's config. Which key is which comes from the one
 * list, `SAFE_OUTPUT_KEY_KINDS` in frontmatter_keys.ts.
 */
import { z } from "zod";
import { SAFE_OUTPUT_GLOBAL_KEYS } from "./frontmatter_keys.ts";

/** Named mappings (custom `jobs:`, `scripts:`, `actions:`), each read key by key by its planner. */
const namedMappings = z.record(z.string(), z.record(z.string(), z.unknown()));

/**
 * The global settings the planners read as typed values; any other global key (and every type) passes as
 * written. Checked without reordering keys (see {@link splitSafeOutputs}).
 */
export const safeOutputsGlobalShape = z.object({
  jobs: namedMappings.optional(),
  scripts: namedMappings.optional(),
  actions: namedMappings.optional(),
  staged: z.boolean().optional(),
  footer: z.boolean().optional(),
}).passthrough();

/** A `safe-outputs:` section split by `SAFE_OUTPUT_KEY_KINDS`: the job's settings and each type's config. */
export interface SafeOutputsSection {
  /** The global settings (`github-token`, `messages`, `jobs`, `threat-detection`, …). */
  global: z.output<typeof safeOutputsGlobalShape>;
  /** Each configured type's settings as written (`null` for a bare key), keyed by its kebab-case name. */
  types: Record<string, unknown>;
}

/**
 * Splits a `safe-outputs:` section into its global settings and its types (a key not global is a type). The
 * section was validated when its file was loaded; a global part that does not fit reads as empty.
 */
export function splitSafeOutputs(section: Record<string, unknown>): SafeOutputsSection {
  const global: Record<string, unknown> = {};
  const types: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section)) {
    (SAFE_OUTPUT_GLOBAL_KEYS.has(key) ? global : types)[key] = value;
  }
  return { global: fitsGlobalShape(global) ? global : {}, types };
}

/** Whether global settings fit their shape (kept as written: zod would put its declared keys first). */
function fitsGlobalShape(global: Record<string, unknown>): global is SafeOutputsSection["global"] {
  return safeOutputsGlobalShape.safeParse(global).success;
}
