/**
 * Workflow-specific safe-output tools: custom safe-output jobs (`safe-outputs.jobs`) and scripts
 * (`safe-outputs.scripts`). Each becomes an MCP tool the agent can call (its inputs as the tool's
 * schema) and an entry of the agent's safe-outputs config.json.
 */
import type { SafeOutputsPlan } from "./safe_outputs.ts";
import type { AgentInput } from "./agent_input.ts";

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? v as Obj : {});
/** A safe-output identifier as a tool name (`send-slack-message` → `send_slack_message`). */
export const toolName = (name: string): string => name.replace(/-/g, "_");

/** The declared inputs of a job or script, by name (sorted). */
function inputs(def: Obj): [string, Obj][] {
  return Object.entries(asObj(def.inputs)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map((
    [k, v],
  ) => [k, asObj(v)]);
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
  for (const [name, def] of Object.entries(asObj(so.raw.jobs))) add(name, asObj(def));
  for (const [name, def] of Object.entries(asObj(so.raw.scripts))) add(toolName(name), asObj(def));
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

/** The dynamic tools of the workflow: custom jobs, then scripts, each in name order. */
export function dynamicTools(a: AgentInput): Obj[] {
  const raw = a.safeOutputs.raw;
  const sorted = (o: Obj) => Object.keys(o).sort().map((k) => [k, asObj(o[k])] as const);
  return [
    ...sorted(asObj(raw.jobs)).map(([k, d]) => toolDefinition(k, d)),
    ...sorted(asObj(raw.scripts)).map(([k, d]) => toolDefinition(k, d)),
  ];
}
