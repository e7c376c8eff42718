/**
 * Workflow-specific safe-output tools: custom safe-output jobs (`safe-outputs.jobs`) and scripts
 * (`safe-outputs.scripts`), each also an entry of the agent's config.json, and one tool per workflow that
 * `dispatch-workflow` / `call-workflow` may start (its inputs read from the target's lock file).
 */
import { parse } from "yaml";
import type { SafeOutputsPlan } from "./plan.ts";
import { actionTool } from "./custom_actions.ts";
import { mappingOf } from "../../source/values.ts";
import { readOn } from "../../source/on_section.ts";
import { processTriggers } from "../triggers.ts";
import { writeYaml } from "../../yaml/writer.ts";
import { splitFrontmatter } from "../../source/parse.ts";

type Obj = Record<string, unknown>;

/** A safe-output identifier as a tool name (`send-slack-message` → `send_slack_message`). */
export const toolName = (name: string): string => name.replace(/-/g, "_");

/** The declared inputs of a job or script, by name (sorted). */
function inputs(def: Obj): [string, Obj][] {
  return Object.entries(mappingOf(def.inputs)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map((
    [k, v],
  ) => [k, mappingOf(v)]);
}

/** The config.json view of a job's or script's inputs (an unset default is `null`, an empty one omitted). */
function configInputs(def: Obj): Obj {
  const out: Obj = {};
  for (const [k, i] of inputs(def)) {
    const e: Obj = {};
    if (i.default === undefined || i.default === null) e.default = null;
    else if (i.default !== "") e.default = i.default;
    if (i.description !== undefined) e.description = i.description;
    if (Array.isArray(i.options)) e.options = i.options;
    e.required = i.required === true;
    e.type = i.type ?? "string";
    out[k] = e;
  }
  return out;
}

/** The config.json entries of the custom jobs (named as declared) and scripts (named as tools). */
export function safeJobsConfig(so: SafeOutputsPlan): Obj {
  const out: Obj = {};
  const add = (key: string, def: Obj) => {
    const e: Obj = {};
    if (def.description !== undefined) e.description = def.description;
    if (def.inputs !== undefined) e.inputs = configInputs(def);
    if (def.output !== undefined) e.output = def.output;
    out[key] = e;
  };
  for (const [name, def] of Object.entries(so.global.jobs ?? {})) add(name, def);
  for (const [name, def] of Object.entries(so.global.scripts ?? {})) add(toolName(name), def);
  // Custom actions are announced by name; their inputs come from the action's metadata at runtime.
  for (const name of Object.keys(so.global.actions ?? {})) out[toolName(name)] = true;
  return out;
}

/** The MCP tool definition of a job or script. */
function toolDefinition(name: string, def: Obj): Obj {
  const properties: Obj = {};
  const required: string[] = [];
  for (const [k, i] of inputs(def)) {
    const p: Obj = {};
    if (i.default !== undefined && i.default !== null) p.default = i.default;
    if (i.description !== undefined) p.description = i.description;
    if (i.type === "choice" && Array.isArray(i.options)) p.enum = i.options;
    p.type = i.type === "choice" || i.type === undefined ? "string" : i.type;
    properties[k] = p;
    if (i.required === true) required.push(k);
  }
  const schema: Obj = { additionalProperties: false, properties };
  if (required.length) schema.required = required;
  schema.type = "object";
  return {
    description: def.description ?? `Custom safe-output job: ${name}`,
    inputSchema: schema,
    name: toolName(name),
  };
}

/** A workflow that `dispatch-workflow` or `call-workflow` may start, with the inputs it declares. */
export interface WorkflowTarget {
  kind: "dispatch" | "call";
  /** The workflow's name as listed (file name without extension). */
  name: string;
  /** The file found: `.lock.yml` or `.yml`. */
  extension: string;
  /** `on.workflow_dispatch.inputs` / `on.workflow_call.inputs` of that file. */
  inputs: Obj;
  /** `on.workflow_call.secrets` of that file, by name. */
  secrets?: string[];
  /** The scopes its jobs ask for, joined (the higher level wins). */
  jobPermissions?: Record<string, string>;
}

/** The scopes a workflow's jobs ask for, joined: `write` over `read` over anything else. */
function jobPermissionsOf(doc: Obj): Record<string, string> {
  const rank = (level: string | undefined) => level === "write" ? 2 : level === "read" ? 1 : 0;
  const out: Record<string, string> = {};
  for (const job of Object.values(mappingOf(doc.jobs))) {
    for (const [scope, level] of Object.entries(mappingOf(mappingOf(job).permissions))) {
      if (out[scope] === undefined || rank(String(level)) > rank(out[scope])) out[scope] = String(level);
    }
  }
  return out;
}

/** What a target workflow's file declares: its `on:` triggers and its jobs' joined permissions. */
interface TargetFacts {
  triggers: Obj;
  jobPermissions: Record<string, string>;
}

/**
 * Facts of target files already parsed, by their text: a corpus names the same few targets from many
 * workflows, and parsing a whole lock each time was a tenth of a corpus compile. Cleared when it grows.
 */
const TARGET_FACTS = new Map<string, TargetFacts>();

function targetFacts(text: string): TargetFacts {
  const known = TARGET_FACTS.get(text);
  if (known) return known;
  let doc: Obj = {};
  try {
    doc = mappingOf(parse(text));
  } catch {
    // unreadable workflow: no inputs
  }
  const facts = { triggers: mappingOf(doc.on), jobPermissions: jobPermissionsOf(doc) };
  if (TARGET_FACTS.size >= 64) TARGET_FACTS.clear();
  TARGET_FACTS.set(text, facts);
  return facts;
}

/** Reads the targets of `dispatch-workflow` and `call-workflow` from the workflows folder (missing ones are skipped). */
export async function readWorkflowTargets(
  so: SafeOutputsPlan,
  workflowsDir: string,
  read: (path: string) => Promise<string | undefined>,
): Promise<WorkflowTarget[]> {
  const out: WorkflowTarget[] = [];
  for (
    const [kind, key, trigger] of [["dispatch", "dispatch-workflow", "workflow_dispatch"], [
      "call",
      "call-workflow",
      "workflow_call",
    ]] as const
  ) {
    const cfg = so.configs[key];
    const names = Array.isArray(cfg)
      ? cfg
      : Array.isArray(mappingOf(cfg).workflows)
      ? mappingOf(cfg).workflows as unknown[]
      : [];
    for (const name of names.map(String)) {
      let found = false;
      for (const extension of [".lock.yml", ".yml"]) {
        const text = await read(`${workflowsDir}/${name}${extension}`);
        if (text === undefined) continue;
        found = true;
        const { triggers, jobPermissions } = targetFacts(text);
        const on = mappingOf(triggers[trigger]);
        out.push({
          kind,
          name,
          extension,
          // A copy: the facts are shared by every workflow that starts this one.
          inputs: structuredClone(mappingOf(on.inputs)),
          secrets: Object.keys(mappingOf(on.secrets)),
          jobPermissions: { ...jobPermissions },
        });
        break;
      }
      // A dispatch target not compiled yet: its `.md`, whose `on:` becomes what its lock will declare (as
      // gh-aw falls back to the source), so compiling again once the lock exists changes nothing.
      if (!found && kind === "dispatch") {
        const inputs = await sourceDispatchInputs(read, `${workflowsDir}/${name}.md`);
        if (inputs) out.push({ kind, name, extension: ".lock.yml", inputs, secrets: [], jobPermissions: {} });
      }
    }
  }
  return out;
}

/** The `workflow_dispatch` inputs the lock compiled from an agentic workflow's source will declare. */
async function sourceDispatchInputs(
  read: (path: string) => Promise<string | undefined>,
  path: string,
): Promise<Obj | undefined> {
  const text = await read(path);
  if (text === undefined) return undefined;
  try {
    const split = splitFrontmatter(text);
    const rawOn = mappingOf(parse(split.frontmatterText)).on;
    if (rawOn === undefined) return undefined;
    const on = processTriggers(readOn(rawOn), "", path, () => [1, 1], []).on;
    const dispatch = mappingOf(parse(writeYaml(on).join("\n"))).workflow_dispatch;
    return dispatch === undefined ? undefined : mappingOf(mappingOf(dispatch).inputs);
  } catch {
    return undefined;
  }
}

/**
 * What the handlers need to know about the targets: each one's file (`.lock.yml` / `.yml` for dispatch,
 * the reusable workflow's path for calls) and which dispatch targets take the caller context
 * (`aw_context`). Merged into `dispatch_workflow` / `call_workflow` of the safe-outputs config.
 */
export function workflowTargetsConfig(targets: WorkflowTarget[]): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  const dispatch = targets.filter((t) => t.kind === "dispatch");
  const call = targets.filter((t) => t.kind === "call");
  if (dispatch.length) {
    const withContext = dispatch.filter((t) => "aw_context" in t.inputs).map((t) => t.name);
    out.dispatch_workflow = {
      ...(withContext.length ? { aw_context_workflows: withContext } : {}),
      workflow_files: Object.fromEntries(dispatch.map((t) => [t.name, t.extension])),
    };
  }
  if (call.length) {
    out.call_workflow = {
      workflow_files: Object.fromEntries(
        call.map((t) => [t.name, `./.github/workflows/${t.name}${t.extension}`]),
      ),
    };
  }
  return out;
}

/** Adds {@link workflowTargetsConfig} to the handler config of `dispatch_workflow` / `call_workflow` (keys kept sorted). */
export function applyWorkflowTargets(so: SafeOutputsPlan, targets: WorkflowTarget[]): void {
  for (const [t, extra] of Object.entries(workflowTargetsConfig(targets))) {
    const cfg = so.handlerConfig[t];
    if (!cfg) continue;
    const merged: Obj = { ...cfg, ...extra };
    so.handlerConfig[t] = Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
  }
}

/** The tool that dispatches or calls a target workflow, its inputs as the schema. */
function workflowTool(t: WorkflowTarget): Obj {
  const properties: Obj = {};
  const required: string[] = [];
  for (const [k, i] of inputs({ inputs: t.inputs })) {
    const p: Obj = {};
    if (i.default !== undefined && i.default !== null) p.default = i.default;
    p.description = i.description ?? `Input parameter '${k}' for workflow ${t.name}`;
    if (i.type === "choice" && Array.isArray(i.options)) p.enum = i.options;
    p.type = i.type === "boolean" || i.type === "number" ? i.type : "string";
    properties[k] = p;
    if (i.required === true) required.push(k);
  }
  const schema: Obj = { additionalProperties: false, properties };
  if (required.length) schema.required = required;
  schema.type = "object";
  return t.kind === "dispatch"
    ? {
      _workflow_name: t.name,
      description: `Dispatch the '${t.name}' workflow with workflow_dispatch trigger. ` +
        "This workflow must support workflow_dispatch and be in .github/workflows/ directory in the same repository.",
      inputSchema: schema,
      name: toolName(t.name),
    }
    : {
      _call_workflow_name: t.name,
      description: `Call the '${t.name}' reusable workflow via workflow_call. ` +
        "This workflow must support workflow_call and be in .github/workflows/ directory in the same repository.",
      inputSchema: schema,
      name: toolName(t.name),
    };
}

/** The dynamic tools of the workflow: custom jobs, scripts, dispatchable and callable workflows. */
export function dynamicTools(safeOutputs: SafeOutputsPlan, targets: WorkflowTarget[] = []): Obj[] {
  const raw = safeOutputs.global;
  const sorted = (o: Record<string, Obj>) => Object.keys(o).sort().map((k) => [k, o[k]] as const);
  return [
    ...sorted(raw.jobs ?? {}).map(([k, d]) => toolDefinition(k, d)),
    ...sorted(raw.scripts ?? {}).map(([k, d]) => toolDefinition(k, d)),
    ...targets.filter((t) => t.kind === "dispatch").map(workflowTool),
    ...targets.filter((t) => t.kind === "call").map(workflowTool),
    ...(safeOutputs.actions ?? []).map(actionTool),
  ];
}
