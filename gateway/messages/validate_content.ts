/**
 * Validation of content blocks (message turns, `system`, and the blocks nested in a `tool_result`), down to
 * their sources, so that a translator never meets a block shape it cannot handle: every malformed block is a
 * 400 naming its path (`messages.1.content.0.source.data`) before any upstream call, never a 500 from a
 * translator reading a missing field. The accepted shapes are Anthropic's own.
 */
import { invalidRequest } from "../errors.ts";

/** Block types accepted in a message turn. */
const MESSAGE_BLOCKS = new Set([
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  // An Anthropic server tool's call and results (server_tools.ts keeps them from other providers).
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
]);
/** Block types accepted inside a `tool_result` (Claude Code sends `tool_reference` from its tool search). */
const TOOL_RESULT_BLOCKS = new Set(["text", "image", "document", "tool_reference", "search_result"]);

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function needString(block: Record<string, unknown>, key: string, path: string): void {
  if (typeof block[key] !== "string") throw invalidRequest(`${path}.${key}: expected a string`);
}

function validateImageSource(source: unknown, path: string): void {
  if (!isObject(source)) throw invalidRequest(`${path}: expected an image source object`);
  switch (source.type) {
    case "base64":
      needString(source, "media_type", path);
      return needString(source, "data", path);
    case "url":
      return needString(source, "url", path);
    case "file":
      return needString(source, "file_id", path);
    default:
      throw invalidRequest(`${path}.type: expected base64, url or file`);
  }
}

function validateDocumentSource(source: unknown, path: string): void {
  if (!isObject(source)) throw invalidRequest(`${path}: expected a document source object`);
  switch (source.type) {
    case "base64":
    case "text":
      if (source.media_type !== undefined) needString(source, "media_type", path);
      return needString(source, "data", path);
    case "url":
      return needString(source, "url", path);
    case "file":
      return needString(source, "file_id", path);
    case "content":
      if (typeof source.content === "string") return;
      return validateBlocks(source.content, `${path}.content`, TOOL_RESULT_BLOCKS);
    default:
      throw invalidRequest(`${path}.type: expected base64, text, url, content or file`);
  }
}

function validateBlock(block: Record<string, unknown>, path: string): void {
  switch (block.type) {
    case "text":
      return needString(block, "text", path);
    case "image":
      return validateImageSource(block.source, `${path}.source`);
    case "document":
      return validateDocumentSource(block.source, `${path}.source`);
    case "tool_use":
      needString(block, "id", path);
      needString(block, "name", path);
      if (block.input !== undefined && !isObject(block.input)) {
        throw invalidRequest(`${path}.input: expected an object`);
      }
      return;
    case "tool_result":
      needString(block, "tool_use_id", path);
      if (block.is_error !== undefined && typeof block.is_error !== "boolean") {
        throw invalidRequest(`${path}.is_error: expected a boolean`);
      }
      if (block.content === undefined || typeof block.content === "string") return;
      return validateBlocks(block.content, `${path}.content`, TOOL_RESULT_BLOCKS);
    case "thinking":
      needString(block, "thinking", path);
      if (block.signature !== undefined) needString(block, "signature", path);
      return;
    case "redacted_thinking":
      return needString(block, "data", path);
    case "tool_reference":
      return needString(block, "tool_name", path);
    case "server_tool_use":
      needString(block, "id", path);
      return needString(block, "name", path);
    case "web_search_tool_result":
    case "web_fetch_tool_result":
      return needString(block, "tool_use_id", path);
  }
}

/** Validates an array of blocks whose types must be in `allowed`. */
function validateBlocks(content: unknown, path: string, allowed: ReadonlySet<string>): void {
  if (!Array.isArray(content)) throw invalidRequest(`${path}: expected a string or an array of blocks`);
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isObject(block) || typeof block.type !== "string") {
      throw invalidRequest(`${path}.${i}: expected a content block with a type`);
    }
    if (!allowed.has(block.type)) {
      throw invalidRequest(`${path}.${i}: content block type ${JSON.stringify(block.type)} is not supported`);
    }
    validateBlock(block, `${path}.${i}`);
  }
}

/** Validates a turn's `content`: a string or an array of message blocks. */
export function validateContent(content: unknown, path: string): void {
  if (typeof content === "string") return;
  validateBlocks(content, path, MESSAGE_BLOCKS);
}

/** Validates `system`: a string or an array of text blocks. */
export function validateSystem(system: unknown): void {
  if (typeof system === "string") return;
  validateBlocks(system, "system", new Set(["text"]));
}
