/**
 * Anthropic Messages request → OpenAI Chat Completions request, shared by `openai` and every
 * `openai-compatible` provider (their differences are the quirks). Tool results become `tool` messages
 * placed directly after the assistant's calls and before the rest of the user's turn; thinking blocks
 * (provider-bound signatures) are dropped.
 */
import { invalidRequest } from "../errors.ts";
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  MessagesRequest,
  ToolReferenceBlockParam,
  ToolResultBlockParam,
} from "../messages/types.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import { toolReferenceText } from "../messages/types.ts";
import type { OpenAiQuirks, OptionalChatParam } from "./contract.ts";

type ChatPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "file"; file: { file_data: string; filename: string } };

/** One OpenAI chat message. */
export type ChatMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | ChatPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

const NINE_ALNUM = /^[a-zA-Z0-9]{9}$/;
const BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Deterministically maps any tool id onto Mistral's `[a-zA-Z0-9]{9}` (same input, same output). */
export function nineCharToolId(id: string): string {
  if (NINE_ALNUM.test(id)) return id;
  let h1 = 0x811c9dc5, h2 = 0x01000193;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = Math.imul(h2 + c, 2246822519) >>> 0;
  }
  let out = "";
  let a = h1, b = h2;
  for (let i = 0; i < 9; i++) {
    const source = i % 2 ? a : b;
    out += BASE62[source % 62];
    if (i % 2) a = Math.floor(a / 62) ^ (b >>> 7);
    else b = Math.floor(b / 62) ^ (a >>> 5);
  }
  return out;
}

function imageUrl(block: ImageBlockParam): string {
  const source = block.source;
  if (source.type === "base64") return `data:${source.media_type};base64,${source.data}`;
  if (source.type === "url") return source.url;
  throw invalidRequest("image source type file is not supported for this provider; send base64 or url");
}

function textOf(content: ToolResultBlockParam["content"]): { text: string; images: ChatPart[] } {
  if (content === undefined) return { text: "", images: [] };
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: ChatPart[] = [];
  for (const part of content) {
    if (part.type === "text") texts.push((part as { text: string }).text);
    else if (part.type === "tool_reference") texts.push(toolReferenceText(part as ToolReferenceBlockParam));
    else if (part.type === "image") {
      images.push({ type: "image_url", image_url: { url: imageUrl(part as ImageBlockParam) } });
    }
  }
  return { text: texts.join("\n"), images };
}

function userParts(blocks: ContentBlockParam[]): ChatPart[] {
  const parts: ChatPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push({ type: "image_url", image_url: { url: imageUrl(block) } });
    else if (block.type === "document") {
      const source = block.source;
      if (source.type === "text" && typeof source.data === "string") {
        parts.push({ type: "text", text: source.data });
      } else if (source.type === "base64" && source.data) {
        parts.push({
          type: "file",
          file: {
            file_data: `data:${source.media_type ?? "application/pdf"};base64,${source.data}`,
            filename: block.title ?? "document.pdf",
          },
        });
      } else throw invalidRequest("document source must be base64 or text for this provider");
    }
  }
  return parts;
}

function userContent(parts: ChatPart[]): string | ChatPart[] {
  return parts.length === 1 && parts[0].type === "text" ? parts[0].text : parts;
}

function systemText(content: MessageParam["content"]): string {
  return typeof content === "string"
    ? content
    : content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
}

/** Converts the conversation, mapping tool ids through `mapId`. */
export function toChatMessages(request: MessagesRequest, mapId: (id: string) => string): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (request.system !== undefined) {
    const text = systemText(request.system);
    if (text) out.push({ role: "system", content: text });
  }
  for (const message of request.messages) {
    if (message.role === "system") {
      out.push({ role: "system", content: systemText(message.content) });
    } else if (typeof message.content === "string") {
      out.push(
        message.role === "user"
          ? { role: "user", content: message.content }
          : { role: "assistant", content: message.content },
      );
    } else if (message.role === "assistant") {
      const texts: string[] = [];
      const calls: ChatToolCall[] = [];
      for (const block of message.content) {
        if (block.type === "text") texts.push(block.text);
        else if (block.type === "tool_use") {
          calls.push({
            id: mapId(block.id),
            type: "function",
            function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
          });
        }
      }
      const assistant: ChatMessage = { role: "assistant", content: texts.length ? texts.join("") : null };
      if (calls.length) assistant.tool_calls = calls;
      out.push(assistant);
    } else {
      const moved: ChatPart[] = [];
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        const { text, images } = textOf(block.content);
        out.push({
          role: "tool",
          tool_call_id: mapId(block.tool_use_id),
          content: block.is_error ? `[tool error] ${text}` : text,
        });
        moved.push(...images);
      }
      const parts = [...moved, ...userParts(message.content)];
      if (parts.length) out.push({ role: "user", content: userContent(parts) });
    }
  }
  return out;
}

function reasoningEffort(budget: number): "low" | "medium" | "high" {
  return budget < 4_096 ? "low" : budget < 16_384 ? "medium" : "high";
}

/** Builds the Chat Completions body for `request` sent to `model`. */
export function toChatRequest(
  request: MessagesRequest,
  model: string,
  quirks: OpenAiQuirks,
  stream: boolean,
): Record<string, unknown> {
  const mapId = quirks.nineCharToolIds ? nineCharToolId : (id: string) => id;
  const body: Record<string, unknown> = {
    model,
    messages: toChatMessages(request, mapId),
    [quirks.maxTokensField]: request.max_tokens,
  };
  if (stream) {
    body.stream = true;
    if (quirks.streamOptions) body.stream_options = { include_usage: true };
  }
  // OpenAI reasoning models reject sampling parameters; older clients still send them.
  const reasoningModel = quirks.reasoningRequest === "reasoning_effort" && /^(o\d|gpt-5)/.test(model);
  // Parameters the server rejects are not sent (`refuse` ones were refused before: see openai.ts).
  const sends = (param: OptionalChatParam) => quirks.unsupportedParams[param] === undefined;
  if (request.temperature !== undefined && !reasoningModel && sends("temperature")) {
    body.temperature = request.temperature;
  }
  if (request.top_p !== undefined && !reasoningModel && sends("top_p")) body.top_p = request.top_p;
  if (request.stop_sequences?.length && sends("stop")) body.stop = request.stop_sequences;
  if (request.metadata?.user_id && sends("user")) body.user = request.metadata.user_id;
  if (request.thinking?.type === "enabled") {
    const budget = request.thinking.budget_tokens;
    if (quirks.reasoningRequest === "reasoning_effort") body.reasoning_effort = reasoningEffort(budget);
    else if (quirks.reasoningRequest === "reasoning_max_tokens") body.reasoning = { max_tokens: budget };
  }
  const schema = outputSchemaOf(request);
  if (schema) {
    // Anthropic's structured outputs are strict (the answer must validate); so is this.
    body.response_format = { type: "json_schema", json_schema: { name: "response", schema, strict: true } };
  }
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
  }
  const choice = request.tool_choice;
  if (choice) {
    if (choice.type === "auto") body.tool_choice = "auto";
    else if (choice.type === "any") body.tool_choice = quirks.toolChoiceAny;
    else if (choice.type === "none") body.tool_choice = "none";
    else body.tool_choice = { type: "function", function: { name: choice.name } };
    if (
      choice.type !== "none" && choice.disable_parallel_tool_use === true && quirks.parallelToolCalls &&
      request.tools?.length
    ) {
      body.parallel_tool_calls = false;
    }
  }
  return body;
}
