/**
 * What one safe-output type declares. Each type lives in its own module under `types/` and is listed once
 * in `registry.ts`; the shared planners (`plan.ts`, `tools_meta.ts`, `validation.ts`, the `safe_outputs`
 * job) read nothing type-specific from anywhere else.
 */
import type { Collector } from "./sentences.ts";
import type { TypeRule } from "./fields.ts";

/** A type's settings as the author wrote them (kebab-case keys; `{}` for a bare key). */
export type RawTypeConfig = Record<string, unknown>;
/** A type's handler configuration as the runtime reads it (snake_case keys unless `kebabKeys`). */
export type HandlerConfig = Record<string, unknown>;

/** One safe-output type of `safe-outputs:`. */
export interface SafeOutputType {
  /** The key under `safe-outputs:` (kebab-case; `dispatch_repository` is gh-aw's own spelling). */
  key: string;
  /**
   * Permissions the `safe_outputs` job needs when the type is enabled (and not staged). Absent: the type
   * runs outside that job's token (an artifact upload, a call or dispatch the runtime makes itself).
   */
  permissions?: Record<string, string>;
  /** The scopes when they depend on the author's settings (takes the place of `permissions`). */
  permissionsFor?: (raw: RawTypeConfig) => Record<string, string>;
  /** A built-in reporting type (noop, missing-tool…): always offered, no handler entry of its own. */
  reporting?: true;
  /** Whether the agent is offered a tool for it (reporting types and artifact uploads are not). */
  offersTool?: false;
  /** The implicit item limit when the author sets none (default 1); `null`: no implicit limit. */
  implicitMax?: number | null;
  /** Handler keys stay kebab-case (the runtime reads them so). */
  kebabKeys?: true;
  /** Type-specific handler settings: defaults and renamed keys, applied after the generic snake-casing. */
  handler?: (out: HandlerConfig, raw: RawTypeConfig, context: { instructionFiles: string[] }) => void;
  /** The constraint sentences appended to the agent tool's description. */
  sentences?: Collector;
  /** The runtime's field validation of the agent's items. */
  validation?: TypeRule;
  /** The type pushes code: the `safe_outputs` job checks out the repository with git credentials. */
  pushesCode?: true;
  /** `safe_outputs` job outputs: output name → the processing step's output it forwards. */
  jobOutputs?: (handler: HandlerConfig) => Record<string, string>;
}

/** `create-issue` → `create_issue`. */
export function snakeCase(key: string): string {
  return key.replace(/-/g, "_");
}
