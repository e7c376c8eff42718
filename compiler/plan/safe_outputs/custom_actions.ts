/**
 * `safe-outputs.actions`: GitHub Actions the agent may run once each through the safe-outputs handler. Each
 * becomes an MCP tool whose schema is the action's inputs, and a step of the `safe_outputs` job that runs
 * the action with the payload the handler exported. The inputs come from the frontmatter, else from the
 * action's metadata cached in `actions-lock.json` (gh-aw records `inputs` and `action_description` there).
 */
import type { StepPlan } from "../types.ts";
import type { LockEntry } from "../pins.ts";
import { plain, type YValue } from "../../yaml/writer.ts";
import { isObject, mappingOf } from "../../source/values.ts";
import type { SafeOutputsSection } from "../../source/safe_outputs_section.ts";

type Obj = Record<string, unknown>;

/** One input of an action's metadata. */
export interface ActionInput {
  description?: string;
  required?: boolean;
  default?: string;
}

/** One resolved `safe-outputs.actions` entry. */
export interface SafeOutputAction {
  /** The tool name (`add-smoked-label` → `add_smoked_label`). */
  tool: string;
  /** The pinned `uses:` text. */
  uses: string;
  /** The author's description, else the action's own, else a generic one. */
  description: string;
  /** The step's name: the description when one is known, else the configured name. */
  stepName: string;
  env: Record<string, string>;
  /** undefined when the action's inputs are unknown (the tool then takes a raw payload). */
  inputs?: Record<string, ActionInput>;
}

function inputsOf(v: unknown): Record<string, ActionInput> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, ActionInput> = {};
  for (const [k, d] of Object.entries(v)) {
    const o = mappingOf(d);
    out[k] = {
      description: typeof o.description === "string" ? o.description : undefined,
      required: o.required === true,
      default: typeof o.default === "string" ? o.default : undefined,
    };
  }
  return out;
}

/** Resolves the configured actions (sorted by name): their pins and inputs. */
export async function resolveSafeOutputActions(
  /** The global settings of `safe-outputs:`. */
  raw: SafeOutputsSection["global"],
  lockEntries: Record<string, LockEntry>,
  pinText: (repo: string, version: string) => Promise<string>,
): Promise<SafeOutputAction[]> {
  const out: SafeOutputAction[] = [];
  const actions = raw.actions ?? {};
  for (const name of Object.keys(actions).sort()) {
    const cfg = actions[name];
    if (typeof cfg.uses !== "string" || cfg.uses === "") continue;
    const at = cfg.uses.lastIndexOf("@");
    const local = cfg.uses.startsWith("./") || cfg.uses.startsWith("../");
    const repoPath = at < 0 ? cfg.uses : cfg.uses.slice(0, at);
    const version = at < 0 ? "" : cfg.uses.slice(at + 1);
    // The lock is keyed by the repository and the ref as written (`owner/repo@v1`).
    const repo = repoPath.split("/").slice(0, 2).join("/");
    const entry = local ? undefined : lockEntries[`${repo}@${version}`];
    const actionDescription = typeof entry?.action_description === "string" ? entry.action_description : "";
    const own = typeof cfg.description === "string" ? cfg.description : "";
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(mappingOf(cfg.env))) if (typeof v === "string") env[k] = v;
    out.push({
      tool: name.replace(/-/g, "_"),
      uses: local || at < 0 ? cfg.uses : await pinText(repoPath, version),
      description: own || actionDescription || `Run the ${name} action`,
      stepName: own || actionDescription || name,
      env,
      inputs: inputsOf(cfg.inputs) ?? inputsOf(entry?.inputs),
    });
  }
  return out;
}

/** An input whose default is an expression (`${{ github.token }}`) is left to GitHub, not asked of the agent. */
const agentInput = (i: ActionInput) => !(i.default ?? "").trim().startsWith("${{");

/** The MCP tool of an action: once-only, its agent-provided inputs as strings. */
export function actionTool(a: SafeOutputAction): Obj {
  const description = `${a.description} (can only be called once)`;
  if (!a.inputs) {
    return {
      description,
      inputSchema: {
        additionalProperties: true,
        properties: {
          payload: { description: "JSON-encoded payload to pass to the action", type: "string" },
        },
        type: "object",
      },
      name: a.tool,
    };
  }
  const properties: Obj = {};
  const required: string[] = [];
  for (const k of Object.keys(a.inputs).sort()) {
    const i = a.inputs[k];
    if (!agentInput(i)) continue;
    const p: Obj = {};
    if (i.default) p.default = i.default;
    if (i.description) p.description = i.description;
    p.type = "string";
    properties[k] = p;
    if (i.required) required.push(k);
  }
  const schema: Obj = { additionalProperties: false, properties };
  if (required.length) schema.required = required;
  schema.type = "object";
  return { description, inputSchema: schema, name: a.tool };
}

/** `GH_AW_SAFE_OUTPUT_ACTIONS`: each action's tool name mapped to itself; undefined without actions. */
export function safeOutputActionsJson(actions: SafeOutputAction[]): string | undefined {
  if (actions.length === 0) return undefined;
  return JSON.stringify(Object.fromEntries(actions.map((a) => [a.tool, a.tool]).sort()));
}

/** The `safe_outputs` steps running each action the agent asked for, with the handler's payload. */
export function actionSteps(actions: SafeOutputAction[]): StepPlan[] {
  return actions.map((a) => {
    const output = `action_${a.tool}_payload`;
    const step: StepPlan = {
      name: a.stepName,
      id: `action_${a.tool}`,
      if: plain(`steps.process_safe_outputs.outputs.${output} != ''`),
      uses: plain(a.uses),
    };
    if (Object.keys(a.env).length > 0) {
      step.env = Object.fromEntries(Object.keys(a.env).sort().map((k) => [k, plain(a.env[k])]));
    }
    const with_: Record<string, YValue> = {};
    if (!a.inputs) with_.payload = plain(`\${{ steps.process_safe_outputs.outputs.${output} }}`);
    else {
      for (const k of Object.keys(a.inputs).filter((k) => agentInput(a.inputs![k])).sort()) {
        with_[k] = plain(`\${{ fromJSON(steps.process_safe_outputs.outputs.${output}).${k} }}`);
      }
    }
    if (Object.keys(with_).length > 0) step.with = with_;
    return step;
  });
}
