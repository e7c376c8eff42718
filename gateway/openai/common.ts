/**
 * Pieces both OpenAI request formats share on their way to the gateway's internal (Anthropic Messages)
 * request: field checks that name the offending field, images by URL or data URL, function tools, the
 * effort → thinking budget, and the default output budget.
 */
import { invalidRequest } from "../errors.ts";
import type {
  ImageBlockParam,
  JsonSchemaFormat,
  MessagesRequest,
  ThinkingConfig,
  ToolParam,
} from "../messages/types.ts";
import { isObject } from "../messages/validate_content.ts";

export { isObject };

/** Output tokens asked for when an OpenAI-format request sets no limit (raised by a thinking budget). */
export const DEFAULT_MAX_TOKENS = 8_192;

/** Thinking budgets for OpenAI's reasoning efforts (the inverse of the providers' budget → effort map). */
const BUDGET_OF_EFFORT: Readonly<Record<string, number>> = {
  minimal: 1_024,
  low: 1_024,
  medium: 4_096,
  high: 16_384,
  xhigh: 32_768,
};

/** The reasoning efforts accepted (`none` turns thinking off). */
export const EFFORTS: ReadonlySet<string> = new Set(["none", ...Object.keys(BUDGET_OF_EFFORT)]);

/** Throws a 400 naming `path` unless `value` is a string. */
export function needString(value: unknown, path: string): string {
  if (typeof value !== "string") throw invalidRequest(`${path}: expected a string`);
  return value;
}

/** Throws a 400 naming `path` unless `value` is absent or a number within [min, max]. */
export function optionalNumber(value: unknown, path: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw invalidRequest(`${path}: expected a number from ${min} to ${max}`);
  }
  return value;
}

/** Throws a 400 naming `path` unless `value` is absent or a positive integer. */
export function optionalPositiveInteger(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalidRequest(`${path}: expected a positive integer`);
  }
  return value;
}

/** Throws a 400 naming `path` unless `value` is absent or a boolean. */
export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalidRequest(`${path}: expected a boolean`);
  return value;
}

/**
 * Refuses every top-level field that is neither accepted nor knowingly ignored, as OpenAI does
 * (`Unrecognized request argument supplied`), and the known fields the gateway cannot honour.
 */
export function checkFields(
  body: Record<string, unknown>,
  known: ReadonlySet<string>,
  refused: Readonly<Record<string, (value: unknown) => string | undefined>>,
): void {
  for (const key of Object.keys(body)) {
    const refuse = refused[key];
    if (refuse) {
      const why = refuse(body[key]);
      if (why) throw invalidRequest(`${key}: ${why}`);
    } else if (!known.has(key)) {
      throw invalidRequest(`${key}: unrecognized request argument supplied`);
    }
  }
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;

/** An image block from an OpenAI image URL (`https://…` or a base64 `data:` URL). */
export function imageBlock(url: unknown, path: string): ImageBlockParam {
  const text = needString(url, path);
  const data = DATA_URL.exec(text);
  if (data) return { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(text)) return { type: "image", source: { type: "url", url: text } };
  throw invalidRequest(`${path}: expected an http(s) URL or a base64 data URL`);
}

/** A function tool; `function` holds name/description/parameters/strict (Chat nests them, Responses not). */
export function functionTool(fn: Record<string, unknown>, path: string): ToolParam {
  const name = fn.name;
  if (typeof name !== "string" || !/^[\w-]{1,128}$/.test(name)) {
    throw invalidRequest(`${path}.name: expected a function name of letters, digits, _ or - (at most 128)`);
  }
  if (fn.description !== undefined && fn.description !== null && typeof fn.description !== "string") {
    throw invalidRequest(`${path}.description: expected a string`);
  }
  if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) {
    throw invalidRequest(`${path}.parameters: expected a JSON Schema object`);
  }
  const strict = optionalBoolean(fn.strict, `${path}.strict`);
  const tool: ToolParam = {
    name,
    input_schema: (fn.parameters as Record<string, unknown> | undefined) ??
      { type: "object", properties: {} },
  };
  if (typeof fn.description === "string") tool.description = fn.description;
  if (strict !== undefined) tool.strict = strict;
  return tool;
}

/** The error for a hosted (provider-side) tool type. */
export function hostedToolRefused(path: string, type: unknown): never {
  throw invalidRequest(
    `${path}.type: tool type ${
      JSON.stringify(type)
    } is a provider-hosted tool, which this gateway does not ` +
      `support; only function tools are accepted`,
  );
}

/** Structured output from a `json_schema` format (`schema` required) or `json_object` (any object). */
export function jsonFormat(format: Record<string, unknown>, path: string): JsonSchemaFormat | undefined {
  switch (format.type) {
    case "text":
      return undefined;
    case "json_object":
      return { type: "json_schema", schema: { type: "object" } };
    case "json_schema": {
      if (!isObject(format.schema)) throw invalidRequest(`${path}.schema: expected a JSON Schema object`);
      if (format.name !== undefined && typeof format.name !== "string") {
        throw invalidRequest(`${path}.name: expected a string`);
      }
      optionalBoolean(format.strict, `${path}.strict`);
      return { type: "json_schema", schema: format.schema };
    }
    default:
      throw invalidRequest(`${path}.type: expected text, json_object or json_schema`);
  }
}

/** The thinking configuration of a reasoning effort, fitted under `maxTokens`; undefined leaves it off. */
export function thinkingOf(effort: string | undefined, maxTokens: number): ThinkingConfig | undefined {
  if (effort === undefined) return undefined;
  if (effort === "none") return { type: "disabled" };
  const budget = Math.min(BUDGET_OF_EFFORT[effort], maxTokens - 1);
  return budget >= 1_024 ? { type: "enabled", budget_tokens: budget } : undefined;
}

/** The output limit: the client's, else the default raised past a thinking budget. */
export function maxTokensOf(requested: number | undefined, effort: string | undefined): number {
  if (requested !== undefined) return requested;
  const budget = effort && effort !== "none" ? BUDGET_OF_EFFORT[effort] : 0;
  return Math.max(DEFAULT_MAX_TOKENS, budget + DEFAULT_MAX_TOKENS / 2);
}

/** Checks a reasoning effort value. */
export function effortOf(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !EFFORTS.has(value)) {
    throw invalidRequest(`${path}: expected one of ${[...EFFORTS].join(", ")}`);
  }
  return value;
}

/** Parses a function call's `arguments` JSON (an object) for the internal tool_use block. */
export function callArguments(value: unknown, path: string): Record<string, unknown> {
  const text = needString(value, path);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest(`${path}: expected a JSON object (the call's arguments), got invalid JSON`);
  }
  if (!isObject(parsed)) throw invalidRequest(`${path}: expected a JSON object`);
  return parsed;
}

/**
 * Sets what both formats spell alike on the internal request: `temperature` (0–2, passed as is), `top_p`,
 * `user` (the metadata user id), tools with their choice (a choice without tools is dropped, except `none`),
 * and the thinking a reasoning effort asks for.
 */
export function applyShared(
  request: MessagesRequest,
  body: Record<string, unknown>,
  tools: ToolParam[] | undefined,
  choice: MessagesRequest["tool_choice"],
  effort: string | undefined,
): void {
  const temperature = optionalNumber(body.temperature, "temperature", 0, 2);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(body.top_p, "top_p", 0, 1);
  if (topP !== undefined) request.top_p = topP;
  if (body.user !== undefined && body.user !== null) {
    request.metadata = { user_id: needString(body.user, "user") };
  }
  if (tools?.length) request.tools = tools;
  if (choice && (tools?.length || choice.type === "none")) request.tool_choice = choice;
  const thinking = thinkingOf(effort, request.max_tokens);
  if (thinking) request.thinking = thinking;
}
