/**
 * `GH_AW_TOOLS_META_JSON` of the agent job's "Generate Safe Outputs Tools" step: per-tool constraint
 * sentences appended to the built-in tool descriptions, the `repo` parameter of tools that may target
 * other repositories, and the workflow-specific (dynamic) tools. The runtime merges it with its own tool
 * catalogue into tools.json.
 */
import type { SafeOutputsPlan } from "./plan.ts";
import { goJson } from "./validation.ts";
import { type Cfg, q, str, strs } from "./types/sentences.ts";
import { snakeCase } from "./types/contract.ts";
import { SAFE_OUTPUT_TYPES } from "./types/registry.ts";
import { mappingOf } from "../../source/values.ts";

/** Each tool's sentence builder, by snake_case tool name. */
const COLLECTORS = new Map(
  SAFE_OUTPUT_TYPES.flatMap((
    type,
  ) => (type.sentences ? [[snakeCase(type.key), type.sentences] as const] : [])),
);

const REPO_PARAM = "Target repository for this operation in 'owner/repo' format.";

/** The `repo` input of a tool that may target other repositories (allowed-repos or target-repo `*`). */
function repoParam(c: Cfg): Record<string, string> | undefined {
  const targetRepo = str(c, "target-repo");
  if (strs(c, "allowed-repos").length === 0 && targetRepo !== "*") return undefined;
  const description = targetRepo === "*"
    ? `${REPO_PARAM} Any repository can be targeted.`
    : targetRepo
    ? `${REPO_PARAM} Default is ${q(targetRepo)}. Must be the target-repo or in the allowed-repos list.`
    : `${REPO_PARAM} Must be the target-repo or in the allowed-repos list.`;
  return { description, type: "string" };
}

/** The raw (kebab-case) config of a type, `{}` for a bare key. */
function rawConfig(so: SafeOutputsPlan, snakeType: string): Cfg {
  const v = so.configs[snakeType.replace(/_/g, "-")] ?? so.configs[snakeType];
  return mappingOf(v);
}

/** Handler-config values that the descriptions show normalised. */
function normalised(h: Cfg | undefined): Cfg {
  return h && typeof h.category === "string" ? { category: h.category } : {};
}

/**
 * Description suffixes and repo parameters of the enabled tools, plus the dynamic tools and the properties the
 * release injects into enabled tools (`injections`, by tool), as Go would indent them.
 */
export function toolsMetaJson(
  so: SafeOutputsPlan,
  dynamicTools: Record<string, unknown>[] = [],
  injections: Readonly<Record<string, unknown>> = {},
): string {
  const suffixes: Record<string, string> = {};
  const repoParams: Record<string, unknown> = {};
  for (const t of Object.keys(so.handlerConfig).sort()) {
    // Raw settings, with the handler's normalised values where it has them (e.g. lower-case category).
    const c = { ...rawConfig(so, t), ...normalised(so.handlerConfig[t]) };
    const max = so.handlerConfig[t]?.max;
    const sentences = COLLECTORS.get(t)?.(c, typeof max === "number" ? max : 0) ?? [];
    if (sentences.length) suffixes[t] = ` CONSTRAINTS: ${sentences.join(" ")}`;
    const rp = COLLECTORS.has(t) ? repoParam(c) : undefined;
    if (rp) repoParams[t] = rp;
  }
  // Properties a release adds to the schema of its enabled tools.
  const injected: Record<string, unknown> = {};
  for (const t of Object.keys(so.handlerConfig).sort()) {
    if (injections[t] !== undefined) injected[t] = injections[t];
  }
  return goJson({
    description_suffixes: suffixes,
    repo_params: repoParams,
    dynamic_tools: dynamicTools,
    ...(Object.keys(injected).length ? { property_injections: injected } : {}),
  }, 2);
}
