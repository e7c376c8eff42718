/**
 * Validation of `POST /v1/messages` and `count_tokens` bodies. Hand-written rather than a schema library so
 * the hot path stays a single pass and every message names the offending field (`messages.2.content.0`).
 * Both API-version dialects are accepted: sampling parameters present or absent, `system` turns inline.
 */
import { invalidRequest } from "../errors.ts";
import type { MessageParam, MessagesRequest, ToolParam } from "./types.ts";
import { isObject, validateContent, validateSystem } from "./validate_content.ts";
import { nestingDepthOver } from "./json_scan.ts";

export { nestingDepthOver };

const ROLES = new Set(["user", "assistant", "system"]);
const TOOL_CHOICES = new Set(["auto", "any", "tool", "none"]);
const THINKING_TYPES = new Set(["enabled", "disabled", "adaptive"]);
/** A tool is a function tool iff its `type` is absent, null or `custom`; anything else is a server tool. */
export function isCustomTool(tool: Record<string, unknown>): boolean {
  return tool.type === undefined || tool.type === null || tool.type === "custom";
}

function validateTools(tools: unknown): ToolParam[] {
  if (!Array.isArray(tools)) throw invalidRequest("tools: expected an array");
  tools.forEach((tool, i) => {
    if (!isObject(tool)) throw invalidRequest(`tools.${i}: expected an object`);
    const name = typeof tool.name === "string" ? tool.name : "";
    if (!isCustomTool(tool)) {
      // A server tool (web_search_20250305, ...): only an Anthropic upstream runs it (server_tools.ts refuses
      // it, naming it, for every other provider once the request is routed).
      if (typeof tool.type !== "string" || !tool.type) {
        throw invalidRequest(`tools.${i}.type: expected a string`);
      }
      if (!name) throw invalidRequest(`tools.${i}.name: expected a non-empty string`);
      return;
    }
    if (!name) throw invalidRequest(`tools.${i}.name: expected a non-empty string`);
    if (!isObject(tool.input_schema)) {
      throw invalidRequest(`tools.${i}.input_schema: expected a JSON Schema object for tool ${name}`);
    }
    if (tool.description !== undefined && typeof tool.description !== "string") {
      throw invalidRequest(`tools.${i}.description: expected a string`);
    }
  });
  return tools as ToolParam[];
}

function validateMessages(messages: unknown): MessageParam[] {
  if (!Array.isArray(messages)) throw invalidRequest("messages: expected an array");
  // Anthropic refuses an empty conversation; upstreams would otherwise answer it with whatever they like.
  if (messages.length === 0) throw invalidRequest("messages: at least one message is required");
  messages.forEach((message, i) => {
    if (!isObject(message)) throw invalidRequest(`messages.${i}: expected an object`);
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      throw invalidRequest(`messages.${i}.role: expected user, assistant or system`);
    }
    validateContent(message.content, `messages.${i}.content`);
  });
  return messages as MessageParam[];
}

/**
 * What a model name may hold: letters, digits and `_ . : / @ + ~ -`, at most 256 characters. Names travel
 * into upstream URLs, headers, log lines and the ledger, so anything else (CR/LF, spaces, NUL, non-ASCII)
 * is refused here rather than escaped at each of those places.
 */
const MODEL_NAME = /^[\w.:/@+~-]{1,256}$/;

/** Refuses a model name that is not a string of {@link MODEL_NAME}'s characters. */
export function validateModelName(model: unknown): string {
  if (typeof model !== "string" || model === "") throw invalidRequest("model: expected a non-empty string");
  if (!MODEL_NAME.test(model)) {
    throw invalidRequest(
      `model: ${
        JSON.stringify(model.slice(0, 80))
      } is not a model name (letters, digits and _ . : / @ + ~ - only, at most 256)`,
    );
  }
  return model;
}

function validateCommon(body: Record<string, unknown>): void {
  validateModelName(body.model);
  validateMessages(body.messages);
  if (body.system !== undefined) validateSystem(body.system);
  if (body.tools !== undefined) validateTools(body.tools);
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (!isObject(choice) || typeof choice.type !== "string" || !TOOL_CHOICES.has(choice.type)) {
      throw invalidRequest("tool_choice.type: expected auto, any, tool or none");
    }
    if (choice.type === "tool" && typeof choice.name !== "string") {
      throw invalidRequest("tool_choice.name: expected the name of a tool");
    }
    if (
      choice.disable_parallel_tool_use !== undefined && typeof choice.disable_parallel_tool_use !== "boolean"
    ) {
      throw invalidRequest("tool_choice.disable_parallel_tool_use: expected a boolean");
    }
  }
  if (body.thinking !== undefined) validateThinking(body.thinking);
  if (body.output_config !== undefined) validateOutputConfig(body.output_config, "output_config");
  if (body.output_format !== undefined) validateFormat(body.output_format, "output_format");
}

function validateThinking(thinking: unknown): void {
  if (!isObject(thinking) || typeof thinking.type !== "string" || !THINKING_TYPES.has(thinking.type)) {
    throw invalidRequest("thinking.type: expected enabled, disabled or adaptive");
  }
  if (thinking.type !== "enabled") return;
  const budget = thinking.budget_tokens;
  if (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1024) {
    throw invalidRequest("thinking.budget_tokens: expected an integer of at least 1024");
  }
}

/** `output_config.format` / `output_format`: only `json_schema` with a schema object exists. */
function validateFormat(format: unknown, path: string): void {
  if (!isObject(format) || format.type !== "json_schema") {
    throw invalidRequest(`${path}.type: expected json_schema`);
  }
  if (!isObject(format.schema)) throw invalidRequest(`${path}.schema: expected a JSON Schema object`);
}

function validateOutputConfig(config: unknown, path: string): void {
  if (!isObject(config)) throw invalidRequest(`${path}: expected an object`);
  if (config.format !== undefined && config.format !== null) validateFormat(config.format, `${path}.format`);
  if (config.effort !== undefined && typeof config.effort !== "string") {
    throw invalidRequest(`${path}.effort: expected a string`);
  }
}

/** Parses JSON text, mapping a syntax error to 400. */
export function parseJsonBody(text: string): Record<string, unknown> {
  if (text.length > 2 * MAX_JSON_DEPTH && nestingDepthOver(text, MAX_JSON_DEPTH)) {
    throw invalidRequest(`request body: arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidRequest("request body is not valid JSON");
  }
  if (!isObject(body)) throw invalidRequest("request body must be a JSON object");
  return body;
}

/**
 * The deepest nesting of arrays and objects a body may have. Every later stage (translation, schema
 * rewriting, `JSON.stringify`) recurses, so a deeper body would overflow the stack there, after routing and
 * possibly mid-upstream-call; real requests (tool schemas included) stay far below it.
 */
export const MAX_JSON_DEPTH = 128;

/** Validates a messages request body, returning it typed. */
export function validateMessagesRequest(body: Record<string, unknown>): MessagesRequest {
  validateCommon(body);
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw invalidRequest("max_tokens: expected a positive integer");
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    throw invalidRequest("stream: expected a boolean");
  }
  if (body.stop_sequences !== undefined) {
    const stops = body.stop_sequences;
    if (!Array.isArray(stops) || !stops.every((s) => typeof s === "string")) {
      throw invalidRequest("stop_sequences: expected an array of strings");
    }
  }
  if (body.metadata !== undefined) {
    const metadata = body.metadata;
    if (!isObject(metadata)) throw invalidRequest("metadata: expected an object");
    if (metadata.user_id !== undefined && metadata.user_id !== null && typeof metadata.user_id !== "string") {
      throw invalidRequest("metadata.user_id: expected a string");
    }
  }
  for (const key of ["temperature", "top_p", "top_k"]) {
    if (body[key] !== undefined && typeof body[key] !== "number") {
      throw invalidRequest(`${key}: expected a number`);
    }
  }
  return body as MessagesRequest;
}

/** Validates a count_tokens body (like a messages body, without `max_tokens`). */
export function validateCountTokensRequest(body: Record<string, unknown>): MessagesRequest {
  validateCommon(body);
  return body as MessagesRequest;
}
