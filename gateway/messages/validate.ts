/**
 * Validation of `POST /v1/messages` and `count_tokens` bodies. Hand-written rather than a schema library so
 * the hot path stays a single pass and every message names the offending field (`messages.2.content.0`).
 * Both API-version dialects are accepted: sampling parameters present or absent, `system` turns inline.
 */
import { invalidRequest } from "../errors.ts";
import type { MessageParam, MessagesRequest, ToolParam } from "./types.ts";

const ROLES = new Set(["user", "assistant", "system"]);
const BLOCK_TYPES = new Set([
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
]);
const TOOL_CHOICES = new Set(["auto", "any", "tool", "none"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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
      throw invalidRequest(
        `tools.${i}: tool ${JSON.stringify(name || String(tool.type))} of type ${
          JSON.stringify(tool.type)
        } is a provider server tool, which this gateway does not support; only function tools ` +
          `(with input_schema) are accepted`,
      );
    }
    if (!name) throw invalidRequest(`tools.${i}.name: expected a non-empty string`);
    if (!isObject(tool.input_schema)) {
      throw invalidRequest(`tools.${i}.input_schema: expected a JSON Schema object for tool ${name}`);
    }
  });
  return tools as ToolParam[];
}

function validateContent(content: unknown, path: string): void {
  if (typeof content === "string") return;
  if (!Array.isArray(content)) throw invalidRequest(`${path}: expected a string or an array of blocks`);
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isObject(block) || typeof block.type !== "string") {
      throw invalidRequest(`${path}.${i}: expected a content block with a type`);
    }
    if (!BLOCK_TYPES.has(block.type)) {
      throw invalidRequest(`${path}.${i}: content block type ${JSON.stringify(block.type)} is not supported`);
    }
    if (block.type === "text" && typeof block.text !== "string") {
      throw invalidRequest(`${path}.${i}.text: expected a string`);
    }
    if (block.type === "image" && !isObject(block.source)) {
      throw invalidRequest(`${path}.${i}.source: expected an image source`);
    }
    if (block.type === "tool_use" && (typeof block.id !== "string" || typeof block.name !== "string")) {
      throw invalidRequest(`${path}.${i}: tool_use needs string id and name`);
    }
    if (block.type === "tool_result" && typeof block.tool_use_id !== "string") {
      throw invalidRequest(`${path}.${i}.tool_use_id: expected a string`);
    }
  }
}

function validateMessages(messages: unknown): MessageParam[] {
  if (!Array.isArray(messages)) throw invalidRequest("messages: expected an array");
  messages.forEach((message, i) => {
    if (!isObject(message)) throw invalidRequest(`messages.${i}: expected an object`);
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      throw invalidRequest(`messages.${i}.role: expected user, assistant or system`);
    }
    validateContent(message.content, `messages.${i}.content`);
  });
  return messages as MessageParam[];
}

function validateCommon(body: Record<string, unknown>): void {
  if (typeof body.model !== "string" || body.model === "") {
    throw invalidRequest("model: expected a non-empty string");
  }
  validateMessages(body.messages);
  if (body.system !== undefined && typeof body.system !== "string") {
    if (!Array.isArray(body.system)) throw invalidRequest("system: expected a string or text blocks");
    validateContent(body.system, "system");
  }
  if (body.tools !== undefined) validateTools(body.tools);
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (!isObject(choice) || typeof choice.type !== "string" || !TOOL_CHOICES.has(choice.type)) {
      throw invalidRequest("tool_choice.type: expected auto, any, tool or none");
    }
    if (choice.type === "tool" && typeof choice.name !== "string") {
      throw invalidRequest("tool_choice.name: expected the name of a tool");
    }
  }
}

/** Parses JSON text, mapping a syntax error to 400. */
export function parseJsonBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidRequest("request body is not valid JSON");
  }
  if (!isObject(body)) throw invalidRequest("request body must be a JSON object");
  return body;
}

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
