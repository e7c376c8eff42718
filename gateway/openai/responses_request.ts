/**
 * OpenAI Responses request → the gateway's internal Anthropic Messages request, validated in the same pass
 * (every malformed field a 400 naming it). `instructions` and `system`/`developer` messages become the
 * system prompt; `function_call` / `function_call_output` items become tool_use / tool_result blocks;
 * `reasoning` items the gateway produced come back as thinking blocks (their `encrypted_content` is the
 * thinking block's signature), so reasoning survives across turns without the gateway storing anything.
 *
 * The gateway stores no responses: `previous_response_id`, `conversation` and `item_reference` items are
 * refused (400), `store` is accepted and always treated as false. Hosted tools (web search, file search,
 * code interpreter, computer use, image generation, MCP, shell, namespaces) are refused. Ignored:
 * `include`, `metadata`, `prompt_cache_key`, `prompt_cache_retention`, `safety_identifier`, `service_tier`,
 * `truncation`, `user` (the metadata user id), `client_metadata`, `stream_options`, `max_tool_calls`,
 * `text.verbosity`, `reasoning.summary` (summaries are always given when the model thinks).
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
import { absent, HOSTED_ITEMS, RESPONSES_KNOWN, RESPONSES_REFUSED } from "./fields.ts";

/** A Responses request as the gateway understood it. */
export interface ResponsesIngress {
  /** The internal request every provider reads. */
  request: MessagesRequest;
  /** The client set no output limit. */
  defaultedMaxTokens: boolean;
  /** Echoed in the response object. */
  echo: Record<string, unknown>;
}

/** The prefix of the `encrypted_content` of a redacted thinking block's reasoning item. */
export const REDACTED_PREFIX = "gw-redacted:";

function contentParts(content: unknown, path: string): string | ContentBlockParam[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalidRequest(`${path}: expected a string or an array of parts`);
  return content.map((part, i): ContentBlockParam => {
    const at = `${path}.${i}`;
    if (!isObject(part)) throw invalidRequest(`${at}: expected an object`);
    switch (part.type) {
      case "input_text":
      case "output_text":
      case "text":
        return { type: "text", text: needString(part.text, `${at}.text`) };
      case "refusal":
        return { type: "text", text: needString(part.refusal, `${at}.refusal`) };
      case "input_image":
        if (typeof part.image_url !== "string") {
          throw invalidRequest(
            `${at}.image_url: expected a URL (file ids need storage, which this gateway has not)`,
          );
        }
        return imageBlock(part.image_url, `${at}.image_url`);
      case "input_file": {
        const data = typeof part.file_data === "string"
          ? /^data:([^;]+);base64,(.*)$/s.exec(part.file_data)
          : null;
        if (!data) {
          throw invalidRequest(`${at}.file_data: expected a base64 data URL (file ids need storage)`);
        }
        return { type: "document", source: { type: "base64", media_type: data[1], data: data[2] } };
      }
      default:
        throw invalidRequest(`${at}.type: expected input_text, input_image, input_file or output_text`);
    }
  });
}

function textOf(content: string | ContentBlockParam[], path: string): string {
  if (typeof content === "string") return content;
  return content.map((block, i) => {
    if (block.type !== "text") throw invalidRequest(`${path}.${i}: expected text`);
    return block.text;
  }).join("");
}

function pushTurn(turns: MessageParam[], role: "user" | "assistant", content: string | ContentBlockParam[]) {
  const blocks: ContentBlockParam[] = typeof content === "string"
    ? [{ type: "text", text: content }]
    : content;
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last && last.role === role) {
    const previous: ContentBlockParam[] = typeof last.content === "string"
      ? [{ type: "text", text: last.content }]
      : last.content;
    last.content = [...previous, ...blocks];
  } else turns.push({ role, content: blocks });
}

function reasoningBlock(item: Record<string, unknown>, path: string): ContentBlockParam | undefined {
  const encrypted = item.encrypted_content;
  if (encrypted === undefined || encrypted === null) return undefined; // not replayable: dropped
  const signature = needString(encrypted, `${path}.encrypted_content`);
  if (signature.startsWith(REDACTED_PREFIX)) {
    return { type: "redacted_thinking", data: signature.slice(REDACTED_PREFIX.length) };
  }
  const summary = Array.isArray(item.summary) ? item.summary : [];
  const text = summary.map((part, i) => {
    if (!isObject(part)) throw invalidRequest(`${path}.summary.${i}: expected an object`);
    return needString(part.text, `${path}.summary.${i}.text`);
  }).join("");
  return { type: "thinking", thinking: text, signature };
}

function inputItem(
  item: unknown,
  path: string,
  system: TextBlockParam[],
  turns: MessageParam[],
): void {
  if (!isObject(item)) throw invalidRequest(`${path}: expected an object`);
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message": {
      const content = contentParts(item.content, `${path}.content`);
      if (item.role === "system" || item.role === "developer") {
        const text = textOf(content, `${path}.content`);
        if (text !== "") system.push({ type: "text", text });
      } else if (item.role === "user" || item.role === "assistant") pushTurn(turns, item.role, content);
      else throw invalidRequest(`${path}.role: expected user, assistant, system or developer`);
      return;
    }
    case "function_call":
      return pushTurn(turns, "assistant", [{
        type: "tool_use",
        id: needString(item.call_id, `${path}.call_id`),
        name: needString(item.name, `${path}.name`),
        input: callArguments(item.arguments, `${path}.arguments`),
      }]);
    case "function_call_output": {
      const output = typeof item.output === "string"
        ? item.output
        : contentParts(item.output, `${path}.output`) as ContentBlockParam[];
      return pushTurn(turns, "user", [{
        type: "tool_result",
        tool_use_id: needString(item.call_id, `${path}.call_id`),
        content: output as string,
      }]);
    }
    case "reasoning": {
      const block = reasoningBlock(item, path);
      if (block) pushTurn(turns, "assistant", [block]);
      return;
    }
    case "item_reference":
      throw invalidRequest(
        `${path}.type: item references need stored responses, which this gateway does not keep`,
      );
    default:
      if (HOSTED_ITEMS.has(String(type))) {
        throw invalidRequest(
          `${path}.type: ${type} items belong to provider-hosted tools, which are not supported`,
        );
      }
      throw invalidRequest(
        `${path}.type: expected message, function_call, function_call_output or reasoning`,
      );
  }
}

const isThinking = (b: ContentBlockParam) => b.type === "thinking" || b.type === "redacted_thinking";

/** True when a thinking block follows another block in `blocks` (it must lead its turn). */
function thinkingMisplaced(blocks: ContentBlockParam[]): boolean {
  for (let i = 1; i < blocks.length; i++) {
    if (isThinking(blocks[i]) && !isThinking(blocks[i - 1])) return true;
  }
  return false;
}

/** The turns and system texts of `input` (a plain loop: no closure per request). */
function conversation(input: unknown, system: TextBlockParam[]): MessageParam[] {
  const turns: MessageParam[] = [];
  if (typeof input === "string") turns.push({ role: "user", content: input });
  else if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) inputItem(input[i], `input.${i}`, system, turns);
  } else throw invalidRequest("input: expected a string or an array of input items");
  // Thinking blocks lead their turn: a reasoning item after the text it produced moves before it (the
  // turns checked first, so a turn in order costs no copies).
  for (const turn of turns) {
    if (turn.role !== "assistant" || typeof turn.content === "string" || !thinkingMisplaced(turn.content)) {
      continue;
    }
    turn.content = [...turn.content.filter(isThinking), ...turn.content.filter((b) => !isThinking(b))];
  }
  if (turns.length === 0) throw invalidRequest("input: at least one user or assistant item is required");
  return turns;
}

function tools(value: unknown): MessagesRequest["tools"] {
  if (absent(value)) return undefined;
  if (!Array.isArray(value)) throw invalidRequest("tools: expected an array");
  return value.map((tool, i) => {
    if (!isObject(tool)) throw invalidRequest(`tools.${i}: expected an object`);
    if (tool.type !== "function") hostedToolRefused(`tools.${i}`, tool.type);
    return functionTool(tool, `tools.${i}`);
  });
}

function toolChoice(value: unknown, parallel: boolean | undefined): MessagesRequest["tool_choice"] {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (absent(value)) return parallel === false ? { type: "auto", ...disable } : undefined;
  if (value === "none") return { type: "none" };
  if (value === "auto") return { type: "auto", ...disable };
  if (value === "required") return { type: "any", ...disable };
  if (isObject(value) && value.type === "function") {
    return { type: "tool", name: needString(value.name, "tool_choice.name"), ...disable };
  }
  if (isObject(value)) hostedToolRefused("tool_choice", value.type);
  throw invalidRequest('tool_choice: expected "none", "auto", "required" or {type: "function", name}');
}

/** `reasoning.effort`, after checking `reasoning` and its `summary`. */
function reasoningEffort(reasoning: unknown): string | undefined {
  if (absent(reasoning)) return undefined;
  if (!isObject(reasoning)) throw invalidRequest("reasoning: expected an object");
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (!absent(summary) && !["auto", "concise", "detailed", "none"].includes(String(summary))) {
    throw invalidRequest("reasoning.summary: expected auto, concise, detailed or none");
  }
  return effortOf(reasoning.effort, "reasoning.effort");
}

/** `text.format`, after checking `text`. */
function textFormat(text: unknown): JsonSchemaFormat | undefined {
  if (absent(text)) return undefined;
  if (!isObject(text)) throw invalidRequest("text: expected an object");
  if (absent(text.format)) return undefined;
  if (!isObject(text.format)) throw invalidRequest("text.format: expected an object");
  return jsonFormat(text.format, "text.format");
}

/** The request's settings as the response object repeats them. */
function echoOf(body: Record<string, unknown>, request: MessagesRequest, requested: number | undefined) {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: requested ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    text: body.text ?? { format: { type: "text" } },
    reasoning: body.reasoning ?? { effort: null, summary: null },
    metadata: body.metadata ?? {},
    store: false,
    previous_response_id: null,
  };
}

/** Validates a Responses body and translates it to the internal request. */
export function parseResponsesRequest(body: Record<string, unknown>): ResponsesIngress {
  checkFields(body, RESPONSES_KNOWN, RESPONSES_REFUSED);
  if (typeof body.model !== "string" || body.model === "") {
    throw invalidRequest("model: expected a non-empty string");
  }
  // The system texts, the empty ones dropped as they are read; the instructions lead them.
  const system: TextBlockParam[] = [];
  const turns = conversation(body.input, system);
  if (!absent(body.instructions)) {
    const text = needString(body.instructions, "instructions");
    if (text !== "") system.unshift({ type: "text", text });
  }
  const requested = optionalPositiveInteger(body.max_output_tokens, "max_output_tokens");
  const effort = reasoningEffort(body.reasoning);
  const request: MessagesRequest = {
    model: body.model,
    max_tokens: maxTokensOf(requested, effort),
    messages: turns,
  };
  if (system.length) request.system = system;
  if (optionalBoolean(body.stream, "stream")) request.stream = true;
  optionalBoolean(body.store, "store");
  const parallel = optionalBoolean(body.parallel_tool_calls, "parallel_tool_calls");
  applyShared(request, body, tools(body.tools), toolChoice(body.tool_choice, parallel), effort);
  const format = textFormat(body.text);
  if (format) request.output_config = { format };
  if (!absent(body.include) && !Array.isArray(body.include)) {
    throw invalidRequest("include: expected an array");
  }
  return { request, defaultedMaxTokens: requested === undefined, echo: echoOf(body, request, requested) };
}
