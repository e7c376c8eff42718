/**
 * Reads a downloaded run folder (see run_download.ts) and extracts what `logs` and `audit` report. Files
 * recognised (any depth): `aw_info.json` (engine, model), `agent_output.json` (safe-output `items`,
 * `errors`), `*usage*.json[l]` (token counts in the Anthropic/OpenAI `usage` shape, per model),
 * `access.log` (firewall: `TCP_DENIED` lines), `*.jsonl` MCP logs (`tools/call` requests), and job logs
 * (`##[error]` lines).
 */
import { isObject, objectOf } from "../source/values.ts";

/** Token counts. */
export interface TokenCounts {
  /** Input tokens. */
  input: number;
  /** Output tokens. */
  output: number;
  /** Cache-read input tokens. */
  cacheRead: number;
  /** Cache-write input tokens. */
  cacheWrite: number;
}

/** Facts extracted from one run folder. */
export interface RunAnalysis {
  /** Engine id from aw_info.json. */
  engine?: string;
  /** Model from aw_info.json or the usage records. */
  model?: string;
  /** Tokens per model (`""` when a record named none). */
  tokensByModel: Record<string, TokenCounts>;
  /** Safe-output items by type. */
  safeOutputs: Record<string, number>;
  /** Firewall-denied requests by domain. */
  firewallBlocked: Record<string, number>;
  /** MCP tool calls by tool name. */
  mcpToolCalls: Record<string, number>;
  /** Error messages (agent output errors, `##[error]` log lines), de-duplicated, at most 50. */
  errors: string[];
}

/** Walks `dir` and builds the analysis. */
export async function analyzeRunDir(dir: string): Promise<RunAnalysis> {
  const analysis: RunAnalysis = {
    tokensByModel: {},
    safeOutputs: {},
    firewallBlocked: {},
    mcpToolCalls: {},
    errors: [],
  };
  const errors = new Set<string>();
  for (const file of await walk(dir)) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    if (name === "run.json") continue;
    const text = await Deno.readTextFile(file).catch(() => "");
    if (name === "aw_info.json") {
      const info = objectOf(safeJson(text));
      if (typeof info.engine_id === "string") analysis.engine = info.engine_id;
      if (typeof info.model === "string" && info.model) analysis.model = info.model;
    } else if (name === "agent_output.json") {
      const output = safeJson(text) as { items?: { type?: string }[]; errors?: unknown[] } | undefined;
      for (const item of output?.items ?? []) {
        if (typeof item?.type === "string") bump(analysis.safeOutputs, item.type.replace(/-/g, "_"));
      }
      for (const e of output?.errors ?? []) errors.add(typeof e === "string" ? e : JSON.stringify(e));
    } else if (/usage.*\.jsonl?$/.test(name)) {
      for (const record of jsonRecords(text)) addUsage(analysis, record);
    } else if (name === "access.log") {
      for (const line of text.split("\n")) {
        if (!line.includes("TCP_DENIED")) continue;
        const host = line.match(/\s(?:CONNECT\s+)?(?:https?:\/\/)?([a-z0-9.-]+\.[a-z]{2,})(?::\d+)?/i)?.[1];
        if (host) bump(analysis.firewallBlocked, host.toLowerCase());
      }
    } else if (name.endsWith(".jsonl")) {
      for (const record of jsonRecords(text)) {
        const message = objectOf(record.message ?? record);
        const params = objectOf(message.params);
        if (message.method === "tools/call" && typeof params.name === "string") {
          bump(analysis.mcpToolCalls, params.name);
        }
      }
    } else if (name.endsWith(".txt") || name.endsWith(".log")) {
      for (const line of text.split("\n")) {
        const match = line.match(/##\[error\](.*)$/);
        if (match) errors.add(match[1].trim());
      }
    }
  }
  analysis.errors = [...errors].slice(0, 50);
  return analysis;
}

function addUsage(analysis: RunAnalysis, record: Record<string, unknown>) {
  const usage = isObject(record.usage) ? record.usage : record;
  const count = (key: string) => (typeof usage[key] === "number" ? usage[key] as number : 0);
  const tokens: TokenCounts = {
    input: count("input_tokens") || count("prompt_tokens"),
    output: count("output_tokens") || count("completion_tokens"),
    cacheRead: count("cache_read_input_tokens") || count("cached_tokens"),
    cacheWrite: count("cache_creation_input_tokens"),
  };
  if (!tokens.input && !tokens.output && !tokens.cacheRead && !tokens.cacheWrite) return;
  const model = typeof record.model === "string" ? record.model : "";
  const total = analysis.tokensByModel[model] ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  total.input += tokens.input;
  total.output += tokens.output;
  total.cacheRead += tokens.cacheRead;
  total.cacheWrite += tokens.cacheWrite;
  if (model && !analysis.model) analysis.model = model;
}

/** Sum of all tokens of a run. */
export function totalTokens(analysis: RunAnalysis): number {
  return Object.values(analysis.tokensByModel).reduce(
    (s, t) => s + t.input + t.output + t.cacheRead + t.cacheWrite,
    0,
  );
}

/** Per-token USD rates of one model, from the workflow's `cost` table. */
export interface CostRates {
  /** Input rate. */
  input: number;
  /** Output rate. */
  output: number;
  /** Cache-read rate (default: the input rate). */
  cacheRead?: number;
  /** Cache-write rate (default: the input rate). */
  cacheWrite?: number;
}

/**
 * Finds `providers.<provider>.models.<model>.cost` in a workflow's frontmatter (under any top-level key,
 * or at the top level) for `model`, matching `<model>` or `<provider>/<model>`.
 */
function findCostRates(frontmatter: Record<string, unknown>, model: string): CostRates | undefined {
  const roots = [frontmatter, ...Object.values(frontmatter)];
  for (const root of roots) {
    const providers = objectOf(root).providers;
    if (!isObject(providers)) continue;
    for (const [provider, config] of Object.entries(providers)) {
      const models = objectOf(config).models;
      if (!isObject(models)) continue;
      for (const [name, entry] of Object.entries(models)) {
        if (name !== model && `${provider}/${name}` !== model) continue;
        const cost = objectOf(objectOf(entry).cost);
        const rate = (key: string) => (cost[key] !== undefined ? Number(cost[key]) : undefined);
        const input = rate("input");
        const output = rate("output");
        if (input === undefined || output === undefined || Number.isNaN(input) || Number.isNaN(output)) {
          continue;
        }
        return { input, output, cacheRead: rate("cache_read"), cacheWrite: rate("cache_write") };
      }
    }
  }
  return undefined;
}

/** The USD cost of a run, or undefined when a model with tokens has no rates. */
export function runCost(analysis: RunAnalysis, frontmatter: Record<string, unknown>): number | undefined {
  let sum = 0;
  for (const [recorded, t] of Object.entries(analysis.tokensByModel)) {
    const model = recorded || analysis.model;
    const rates = model ? findCostRates(frontmatter, model) : undefined;
    if (!rates) return undefined;
    sum += t.input * rates.input + t.output * rates.output + t.cacheRead * (rates.cacheRead ?? rates.input) +
      t.cacheWrite * (rates.cacheWrite ?? rates.input);
  }
  return Object.keys(analysis.tokensByModel).length > 0 ? sum : undefined;
}

function bump(map: Record<string, number>, key: string) {
  map[key] = (map[key] ?? 0) + 1;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonRecords(text: string): Record<string, unknown>[] {
  const whole = safeJson(text);
  if (Array.isArray(whole)) return whole.filter((r) => r && typeof r === "object");
  if (isObject(whole)) return [whole];
  return text.split("\n").map(safeJson).filter((r): r is Record<string, unknown> =>
    !!r && typeof r === "object"
  );
}

async function walk(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) files.push(...await walk(path));
      else if (entry.isFile) files.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files.sort();
}
