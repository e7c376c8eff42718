/**
 * OpenAI Chat Completions request → the gateway's internal Anthropic Messages request. Validation and
 * translation are one pass: every malformed field is a 400 naming it (`messages[2].content`) before any
 * upstream call. `system` and `developer` messages become the system prompt (in order); `tool` messages
 * become `tool_result` blocks; consecutive turns of one role merge, as the Messages API expects.
 *
 * Ignored as OpenAI-only hints: `store`, `metadata`, `seed`, `service_tier`, `prompt_cache_key`,
 * `prompt_cache_retention`, `safety_identifier`, `verbosity`, `presence_penalty`, `frequency_penalty`,
 * `user` (sent as the metadata user id), `stream_options.include_obfuscation`. Refused (400): `n` > 1,
 * `logprobs`, `top_logprobs`, `logit_bias`, `audio`, non-text `modalities`, `prediction`,
 * `web_search_options`, the legacy `functions`/`function_call`, and any unrecognized field.
 */
import { invalidRequest } from "../errors.ts";
import type {
  ContentBlockParam,
  JsonSchemaFormat,
  MessageParam,
  MessagesRequest,
  TextBlockParam,
} from "../messages/types.ts";
import {
  applyShared,
  callArguments,
  checkFields,
  effortOf,
  functionTool,
  hostedToolRefused,
  imageBlock,
  isObject,
  jsonFormat,
  maxTokensOf,
  needString,
  optionalBoolean,
  optionalPositiveInteger,
} from "./common.ts";
import { CHAT_KNOWN, CHAT_REFUSED } from "./fields.ts";

/** A Chat Completions request as the gateway understood it. */
export interface ChatIngress {
  /** The internal request every provider reads. */
  request: MessagesRequest;
  /** `stream_options.include_usage`: the stream ends with a usage chunk. */
  includeUsage: boolean;
  /** The client set no output limit (the route may lower the default to the model's own). */
  defaultedMaxTokens: boolean;
}

/** The path of message `i`'s content, for errors (built only when one is thrown). */
const contentPath = (i: number) => `messages.${i}.content`;

function userParts(content: unknown, index: number): string | ContentBlockParam[] {
  if (typeof content === "string") return content;
  const path = contentPath(index);
  if (!Array.isArray(content)) throw invalidRequest(`${path}: expected a string or an array of parts`);
  return content.map((part, i): ContentBlockParam => {
    const at = `${path}.${i}`;
    if (!isObject(part)) throw invalidRequest(`${at}: expected an object`);
    switch (part.type) {
      case "text":
        return { type: "text", text: needString(part.text, `${at}.text`) };
      case "image_url": {
        if (!isObject(part.image_url)) throw invalidRequest(`${at}.image_url: expected an object`);
        return imageBlock(part.image_url.url, `${at}.image_url.url`);
      }
      case "file": {
        const file = isObject(part.file) ? part.file : undefined;
        const data = typeof file?.file_data === "string"
          ? /^data:([^;]+);base64,(.*)$/s.exec(file.file_data)
          : null;
        if (!data) {
          throw invalidRequest(`${at}.file.file_data: expected a base64 data URL (file ids need storage)`);
        }
        return { type: "document", source: { type: "base64", media_type: data[1], data: data[2] } };
      }
      default:
        throw invalidRequest(`${at}.type: expected text, image_url or file`);
    }
  });
}

function textOnly(content: unknown, index: number): string {
  if (typeof content === "string") return content;
  const path = contentPath(index);
  if (!Array.isArray(content)) throw invalidRequest(`${path}: expected a string or an array of text parts`);
  return content.map((part, i) => {
    if (!isObject(part) || (part.type !== "text" && part.type !== "refusal")) {
      throw invalidRequest(`${path}.${i}.type: expected text`);
    }
    return needString(part.type === "text" ? part.text : part.refusal, `${path}.${i}.${part.type}`);
  }).join("");
}

function assistantTurn(message: Record<string, unknown>, index: number): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  if (message.content !== undefined && message.content !== null) {
    const text = textOnly(message.content, index);
    if (text) blocks.push({ type: "text", text });
  }
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    const path = `messages.${index}`;
    if (!Array.isArray(message.tool_calls)) throw invalidRequest(`${path}.tool_calls: expected an array`);
    message.tool_calls.forEach((call, i) => {
      const at = `${path}.tool_calls.${i}`;
      if (!isObject(call) || (call.type !== undefined && call.type !== "function")) {
        throw invalidRequest(`${at}.type: expected function`);
      }
      if (!isObject(call.function)) throw invalidRequest(`${at}.function: expected an object`);
      blocks.push({
        type: "tool_use",
        id: needString(call.id, `${at}.id`),
        name: needString(call.function.name, `${at}.function.name`),
        input: callArguments(call.function.arguments, `${at}.function.arguments`),
      });
    });
  }
  return blocks;
}

/** Appends a turn, merging it into the previous one of the same role. */
function pushTurn(turns: MessageParam[], role: "user" | "assistant", content: string | ContentBlockParam[]) {
  const last = turns[turns.length - 1];
  if (!last || last.role !== role) {
    turns.push({ role, content });
    return;
  }
  // Blocks for a merge only (a lone turn keeps its string content).
  const blocks: ContentBlockParam[] = typeof content === "string"
    ? [{ type: "text", text: content }]
    : content;
  const previous: ContentBlockParam[] = typeof last.content === "string"
    ? [{ type: "text", text: last.content }]
    : last.content;
  last.content = [...previous, ...blocks];
}

/**
 * Reads the messages into `request`: the turns into `messages`, the system and developer texts into `system`
 * (the empty ones dropped; one is sent as a string — fewer bytes upstream, the same prompt — several as
 * blocks). No array for a lone system text, no copy to drop the empty ones.
 */
function conversation(messages: unknown, request: MessagesRequest): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalidRequest("messages: expected a non-empty array");
  }
  let systemText: string | undefined;
  let systemBlocks: TextBlockParam[] | undefined;
  const turns = request.messages;
  // A plain loop, and paths built only for an error: no closure and no path strings per message.
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isObject(message)) throw invalidRequest(`messages.${i}: expected an object`);
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOnly(message.content, i);
        if (text === "") break;
        if (systemText === undefined) systemText = text;
        else if (systemBlocks) systemBlocks.push({ type: "text", text });
        else systemBlocks = [{ type: "text", text: systemText }, { type: "text", text }];
        break;
      }
      case "user":
        pushTurn(turns, "user", userParts(message.content, i));
        break;
      case "assistant": {
        const blocks = assistantTurn(message, i);
        // Text alone travels as a string, as a client of the Messages API would write it.
        if (blocks.length === 1 && blocks[0].type === "text") pushTurn(turns, "assistant", blocks[0].text);
        else if (blocks.length) pushTurn(turns, "assistant", blocks);
        break;
      }
      case "tool":
        pushTurn(turns, "user", [{
          type: "tool_result",
          tool_use_id: typeof message.tool_call_id === "string"
            ? message.tool_call_id
            : needString(message.tool_call_id, `messages.${i}.tool_call_id`),
          content: textOnly(message.content, i),
        }]);
        break;
      default:
        throw invalidRequest(`messages.${i}.role: expected system, developer, user, assistant or tool`);
    }
  }
  if (turns.length === 0) {
    throw invalidRequest("messages: at least one user or assistant message is required");
  }
  if (systemBlocks) request.system = systemBlocks;
  else if (systemText !== undefined) request.system = systemText;
}

function tools(value: unknown): MessagesRequest["tools"] {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidRequest("tools: expected an array");
  return value.map((tool, i) => {
    if (!isObject(tool)) throw invalidRequest(`tools.${i}: expected an object`);
    if (tool.type !== "function") hostedToolRefused(`tools.${i}`, tool.type);
    if (!isObject(tool.function)) throw invalidRequest(`tools.${i}.function: expected an object`);
    return functionTool(tool.function, `tools.${i}.function`);
  });
}

function toolChoice(value: unknown, parallel: boolean | undefined): MessagesRequest["tool_choice"] {
  // The choice's own object, `disable_parallel_tool_use` set on it only when asked (no spread per request).
  const disable = parallel === false;
  if (value === undefined || value === null) {
    return disable ? { type: "auto", disable_parallel_tool_use: true } : undefined;
  }
  if (value === "none") return { type: "none" };
  if (value === "auto") return disable ? { type: "auto", disable_parallel_tool_use: true } : { type: "auto" };
  if (value === "required") {
    return disable ? { type: "any", disable_parallel_tool_use: true } : { type: "any" };
  }
  if (isObject(value) && value.type === "function" && isObject(value.function)) {
    const name = needString(value.function.name, "tool_choice.function.name");
    return disable ? { type: "tool", name, disable_parallel_tool_use: true } : { type: "tool", name };
  }
  throw invalidRequest(
    'tool_choice: expected "none", "auto", "required" or {type: "function", function: {name}}',
  );
}

function stops(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string") || list.length > 4) {
    throw invalidRequest("stop: expected a string or an array of at most 4 strings");
  }
  return list.length ? list : undefined;
}

/** `response_format`: `json_schema` (its spec nested under `json_schema`), `json_object` or `text`. */
function responseFormat(value: unknown): JsonSchemaFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalidRequest("response_format: expected an object");
  if (value.type !== "json_schema") return jsonFormat(value, "response_format");
  if (!isObject(value.json_schema)) throw invalidRequest("response_format.json_schema: expected an object");
  return jsonFormat({ ...value.json_schema, type: "json_schema" }, "response_format.json_schema");
}

/** The ignored hints that must still be numbers. */
const NUMERIC_HINTS = ["seed", "presence_penalty", "frequency_penalty"] as const;

/** Validates a Chat Completions body and translates it to the internal request. */
export function parseChatRequest(body: Record<string, unknown>): ChatIngress {
  checkFields(body, CHAT_KNOWN, CHAT_REFUSED);
  if (typeof body.model !== "string" || body.model === "") {
    throw invalidRequest("model: expected a non-empty string");
  }
  // The output limit is set once read (below): the messages are checked first, as they always were.
  const request: MessagesRequest = { model: body.model, max_tokens: 0, messages: [] };
  conversation(body.messages, request);
  const requested = optionalPositiveInteger(body.max_completion_tokens, "max_completion_tokens") ??
    optionalPositiveInteger(body.max_tokens, "max_tokens");
  const effort = effortOf(body.reasoning_effort, "reasoning_effort");
  const maxTokens = maxTokensOf(requested, effort);
  const stream = optionalBoolean(body.stream, "stream") ?? false;
  let includeUsage = false;
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!isObject(body.stream_options)) throw invalidRequest("stream_options: expected an object");
    if (!stream) throw invalidRequest("stream_options: only allowed when stream is true");
    includeUsage = optionalBoolean(body.stream_options.include_usage, "stream_options.include_usage") ??
      false;
  }
  request.max_tokens = maxTokens;
  if (stream) request.stream = true;
  const stop = stops(body.stop);
  if (stop) request.stop_sequences = stop;
  const parallel = optionalBoolean(body.parallel_tool_calls, "parallel_tool_calls");
  applyShared(request, body, tools(body.tools), toolChoice(body.tool_choice, parallel), effort);
  const format = responseFormat(body.response_format);
  if (format) request.output_config = { format };
  for (const field of NUMERIC_HINTS) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== "number") {
      throw invalidRequest(`${field}: expected a number`);
    }
  }
  return { request, includeUsage, defaultedMaxTokens: requested === undefined };
}
