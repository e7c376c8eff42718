/**
 * Safe outputs: the per-type handler configuration (snake_case JSON, as the pinned gh-aw runtime reads
 * it), the permission union of the enabled types, the agent's tool list, and the threat-detection switch.
 * Sanitization (secret redaction, URL/domain filtering, XML escaping, limits, control characters,
 * reference escaping, HTTPS enforcement) runs in the runtime; we configure it here (allowed domains,
 * allowed references, limits).
 */
import type { SafeOutputAction } from "./custom_actions.ts";
import { DEFAULT_TARGET, type SafeOutputsJobStyle } from "../../targets/mod.ts";
import type { Diagnostic } from "../../api.ts";
import { diagnostic } from "../../source/diagnostics.ts";
import { type SafeOutputType, snakeCase } from "./types/contract.ts";
import { DEFAULT_INSTRUCTION_FILES } from "../engines/facts.ts";
import { SAFE_OUTPUT_TYPES, safeOutputType } from "./types/registry.ts";
import { SAFE_OUTPUT_GLOBAL_KEYS } from "../../source/frontmatter_keys.ts";
import { isObject, objectOf } from "../../source/values.ts";
import type { SafeOutputsSection } from "../../source/safe_outputs_section.ts";

/** Global (non-type) keys of `safe-outputs:`. */
export const GLOBAL_KEYS: ReadonlySet<string> = SAFE_OUTPUT_GLOBAL_KEYS;

/** A built-in reporting type (noop, missing-tool…). */
const isReporting = (key: string): boolean => safeOutputType(key)?.reporting === true;

/** The planned safe outputs of a workflow. */
export interface SafeOutputsPlan {
  /** Whether `safe-outputs:` was configured (else create-issue was enabled automatically). */
  configured: boolean;
  /** Whether create-issue was enabled automatically (no safe-output type other than the reporting ones). */
  autoCreateIssue?: boolean;
  /** Enabled types (kebab-case) in name order. */
  types: string[];
  /** Handler config (snake_case), keys sorted. */
  handlerConfig: Record<string, Record<string, unknown>>;
  permissions: Record<string, string>;
  /** Tool names offered to the agent. */
  tools: string[];
  threatDetection: boolean;
  /** Whether a no-op run files an issue (`safe-outputs.noop.report-as-issue`, default true). */
  noopReportAsIssue: boolean;
  /** Threat detection not switched off (even when, with `engine: false`, no job is left to run it). */
  threatDetectionConfigured: boolean;
  staged: boolean;
  needs: string[];
  allowedReferences?: string[];
  allowedDomains?: string[];
  /** The section's global settings (`github-token`, `messages`, `jobs`, …) as written. */
  global: SafeOutputsSection["global"];
  /** Each enabled type's settings as written, by kebab-case name (the automatic create-issue's included). */
  configs: Record<string, unknown>;
  /** `safe-outputs.actions`, resolved (pins, inputs) while the agent job is planned. */
  actions?: SafeOutputAction[];
}

/** Converts `1d`, `2w`, `12h`, or a number of days into hours. */
export function expiresHours(v: unknown): unknown {
  if (typeof v === "number") return v * 24;
  if (typeof v !== "string") return v;
  const m = /^(\d+)\s*([hdwm])$/.exec(v.trim());
  if (!m) return v;
  const n = +m[1];
  return m[2] === "h" ? n : m[2] === "d" ? n * 24 : m[2] === "w" ? n * 168 : n * 720;
}

/** A type's handler config: the author's settings snake-cased, its implicit max, then its own rules. */
/** A type's settings with `footer: false` added when the workflow turns footers off and the type is silent. */
function withFooter(raw: unknown, footerOff: boolean): unknown {
  const settings = settingsOf(raw);
  return footerOff && settings.footer === undefined ? { ...settings, footer: false } : raw;
}

/** A type's settings as written (`{}` for a bare key). */
function settingsOf(raw: unknown): Record<string, unknown> {
  return objectOf(raw);
}

/** A handler's config as the target release writes it: its patch-size default and key names. */
function releaseConfig(
  handler: string,
  config: Record<string, unknown>,
  settings: Record<string, unknown>,
  style: Pick<SafeOutputsJobStyle, "defaultMaxPatchSize" | "handlerKeyRenames" | "handlerDefaults">,
): Record<string, unknown> {
  let out = config;
  if (config.max_patch_size !== undefined && settings["max-patch-size"] === undefined) {
    out = { ...out, max_patch_size: style.defaultMaxPatchSize };
  }
  const defaults = style.handlerDefaults?.[handler];
  if (defaults && Object.keys(defaults).some((k) => out[k] === undefined)) {
    const merged: Record<string, unknown> = { ...defaults, ...out };
    out = Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
  }
  const renames = style.handlerKeyRenames[handler];
  if (renames) out = Object.fromEntries(Object.entries(out).map(([k, v]) => [renames[k] ?? k, v]));
  return out;
}

function typeConfig(type: SafeOutputType, raw: unknown, instructionFiles: string[]): Record<string, unknown> {
  const settings = settingsOf(raw);
  const out: Record<string, unknown> = {};
  const key = (
    k: string,
  ) => (type.kebabKeys || k === "target-repo" || k === "custom-agent" || k === "github-token"
    ? k
    : snakeCase(k));
  for (const [k, v] of Object.entries(settings)) {
    // A type's own `github-token` stays in its handler entry (the handler writes with it); an app does not.
    if (k === "github-app" || k === "protected-files") continue;
    // The CI trigger token reaches only the handler step (`GH_AW_CI_TRIGGER_TOKEN`), never a config the
    // agent job writes: the agent must not read a secret it was not given.
    if (k === "github-token-for-extra-empty-commit") continue;
    if (k === "expires" && v === false) continue;
    if (Array.isArray(v) && v.length === 0 && k !== "allowed") continue;
    out[key(k)] = k === "expires" ? expiresHours(v) : v;
  }
  if (out.max === undefined && type.implicitMax !== null) out.max = type.implicitMax ?? 1;
  for (const k of ["reviewers", "assignees", "labels"]) if (typeof out[k] === "string") out[k] = [out[k]];
  type.handler?.(out, settings, { instructionFiles });
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}

/** A tool's rank in gh-aw's tool order: its type's place in the registry. */
const TOOL_RANK = new Map(SAFE_OUTPUT_TYPES.map((type, index) => [snakeCase(type.key), index]));

function toolList(
  types: string[],
  cfg: Record<string, Record<string, unknown>>,
  configured: boolean,
  global: SafeOutputsSection["global"],
  after: Readonly<Record<string, string>> = {},
): string[] {
  const names = types.filter((t) => safeOutputType(t)?.offersTool !== false).map(snakeCase);
  // A tool the release moves right after another ranks just behind it.
  const rank = (t: string) =>
    after[t] !== undefined ? (TOOL_RANK.get(after[t]) ?? 999) + 0.5 : TOOL_RANK.get(t) ?? 999;
  names.sort((a, b) => rank(a) - rank(b));
  const out = names.map((t) => {
    const max = cfg[t]?.max;
    return typeof max === "number" && max > 1 ? `${t}(max:${max})` : t;
  });
  if (!configured) return out;
  // The author's own tools follow the built-in ones: custom jobs, then scripts, then actions.
  const own = (key: string) => {
    return Object.keys(objectOf(global[key])).map(snakeCase).sort();
  };
  return [
    ...out,
    "missing_tool",
    "missing_data",
    "noop",
    ...own("jobs"),
    ...own("scripts"),
    ...own("actions"),
  ];
}

/** Plans safe outputs from the merged `safe-outputs:` section (undefined when none is declared). */
export function planSafeOutputs(
  declared: SafeOutputsSection | undefined,
  workflowId: string,
  file: string,
  diags: Diagnostic[],
  instructionFiles: string[] = DEFAULT_INSTRUCTION_FILES,
  topLevelFooter?: boolean,
  /** The target's defaults (v0.76.1's when absent). */
  style: Pick<
    SafeOutputsJobStyle,
    | "noopReportAsIssue"
    | "declaredConfigures"
    | "defaultMaxPatchSize"
    | "handlerKeyRenames"
    | "handlerDefaults"
    | "toolOrderAfter"
  > = DEFAULT_TARGET.jobs.safeOutputs,
): SafeOutputsPlan {
  const section = declared ?? { global: {}, types: {} };
  const configuredTypes = Object.keys(section.types).filter((k) => !isReporting(k));
  const hasJobs = Object.keys(section.global.jobs ?? {}).length > 0;
  // Only built-in reporting types (noop, missing-tool…) still get the automatic create-issue, but count as
  // configured safe outputs (reporting tools, detection, conclusion steps), as gh-aw does.
  const autoCreateIssue = configuredTypes.length === 0 && !hasJobs;
  // Later releases count any declared `safe-outputs:` (even one holding only threat-detection) as configured.
  const configured = declared !== undefined &&
    (style.declaredConfigures || configuredTypes.length > 0 || hasJobs ||
      Object.keys(section.types).some(isReporting));
  const configs: Record<string, unknown> = !autoCreateIssue ? section.types : {
    ...section.types,
    "create-issue": { max: 1, labels: [workflowId], "title-prefix": `[${workflowId}]` },
  };
  const global = section.global;
  const types = Object.keys(configs).sort();
  const noopConfig = configs.noop;
  // The spec's `noop.report-as-issue: false` stops the no-op issue (it used to be written as "true" always);
  // a release whose default is not to report counts a declared `noop` as asking for it.
  const noopReportAsIssue = objectOf(noopConfig)["report-as-issue"] !== false &&
    (style.noopReportAsIssue || (declared !== undefined && "noop" in declared.types));
  const handlerConfig: Record<string, Record<string, unknown>> = {};
  // `footer: false` (top level or under `safe-outputs:`) turns the footer off for every handler that does not
  // set its own; the runtime reads it from each handler's config only.
  const footerOff = (global.footer ?? topLevelFooter) === false;
  const permissions: Record<string, string> = {};
  const staged = global.staged === true;
  for (const key of types) {
    const type = safeOutputType(key);
    if (type?.reporting) continue;
    if (!type) {
      diags.push(
        diagnostic(
          "unknown-safe-output",
          { file, line: 1, column: 1 },
          `safe output "${key}" is not a known type`,
        ),
      );
      continue;
    }
    handlerConfig[snakeCase(key)] = releaseConfig(
      snakeCase(key),
      typeConfig(type, withFooter(configs[key], footerOff), instructionFiles),
      settingsOf(configs[key]),
      style,
    );
    const scopes = type.permissionsFor?.(settingsOf(configs[key])) ?? type.permissions;
    // A staged type (globally or on its own) only previews: it needs no write scope.
    if (staged || settingsOf(configs[key]).staged === true || !scopes) continue;
    for (const [scope, level] of Object.entries(scopes)) {
      if (permissions[scope] !== "write") permissions[scope] = level;
    }
  }
  const mentions = global.mentions;
  if (mentions === false) handlerConfig.mentions = { enabled: false };
  else if (isObject(mentions)) {
    const m: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(mentions)) {
      m[snakeCase(k)] = k === "allowed" && Array.isArray(v) ? v.map((x) => String(x).replace(/^@/, "")) : v;
    }
    handlerConfig.mentions = m;
  }
  if (configured) {
    handlerConfig.create_report_incomplete_issue = {};
    handlerConfig.missing_data = {};
    handlerConfig.missing_tool = {};
    handlerConfig.noop = { max: 1, "report-as-issue": String(noopReportAsIssue) };
    handlerConfig.report_incomplete = {};
  }
  const sortedConfig: Record<string, Record<string, unknown>> = {};
  for (const k of Object.keys(handlerConfig).sort()) sortedConfig[k] = handlerConfig[k];
  const sortedPerms: Record<string, string> = {};
  for (const k of Object.keys(permissions).sort()) sortedPerms[k] = permissions[k];
  const td = global["threat-detection"];
  // `engine: false` turns the AI review off; with no custom `steps` of its own nothing is left to run.
  const tdObj = isObject(td) ? td : undefined;
  const threatDetectionConfigured = configured && td !== false && tdObj?.enabled !== false;
  const threatDetection = threatDetectionConfigured &&
    !(tdObj?.engine === false && !(Array.isArray(tdObj.steps) && tdObj.steps.length > 0));
  const refs = global["allowed-github-references"];
  const domains = global["allowed-domains"];
  return {
    configured,
    autoCreateIssue,
    types,
    handlerConfig: sortedConfig,
    permissions: sortedPerms,
    tools: toolList(types, handlerConfig, configured, global, style.toolOrderAfter),
    threatDetection,
    noopReportAsIssue,
    threatDetectionConfigured,
    staged,
    needs: Array.isArray(global.needs) ? global.needs.map(String) : [],
    allowedReferences: Array.isArray(refs) ? refs.map(String) : undefined,
    allowedDomains: Array.isArray(domains) ? domains.map(String) : undefined,
    global,
    configs,
  };
}
