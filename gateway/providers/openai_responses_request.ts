/**
 * Anthropic Messages request → OpenAI Responses API request (`POST /v1/responses`). The gateway is
 * stateless, so every request is `store: false` and carries the whole conversation as input items; reasoning
 * survives across turns because each reasoning item's id and `encrypted_content` travel to the client inside
 * the thinking block's signature (`gw-<provider>:<id>:<encrypted>`) and come back as a `reasoning` input item
 * in front of the calls it led to. Thinking blocks signed by anyone else are dropped (they cannot be replayed).
 */
import { invalidRequest } from "../errors.ts";
import { sha256Hex } from "@switchyard/lib/crypto.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import {
  type ContentBlockParam,
  type DocumentBlockParam,
  type ImageBlockParam,
  type MessageParam,
  type MessagesRequest,
  type ThinkingBlockParam,
  type ToolReferenceBlockParam,
  toolReferenceText,
  type ToolResultBlockParam,
} from "../messages/types.ts";
import { foreignSignature } from "./signatures.ts";
import { functionToolsOf, webSearchToolOf } from "../messages/web_search.ts";
import { responsesSearchTool, SEARCH_SOURCES_INCLUDE } from "./openai_responses_search.ts";

type Part = Record<string, unknown>;
type Item = Record<string, unknown>;

/** The Responses API refuses `max_output_tokens` below this (`integer below minimum value`). */
export const MIN_MAX_OUTPUT_TOKENS = 16;

/** The signature carrying one reasoning item across turns. */
export function reasoningSignature(provider: string, id: string, encrypted: string): string {
  return foreignSignature(provider, `${id}:${encrypted}`);
}

/** The reasoning item a thinking block carries, when it was signed by `provider`. */
export function reasoningItemOf(
  provider: string,
  block: ThinkingBlockParam,
): { id: string; encrypted: string } | undefined {
  const prefix = foreignSignature(provider, "");
  if (typeof block.signature !== "string" || !block.signature.startsWith(prefix)) return undefined;
  const rest = block.signature.slice(prefix.length);
  const colon = rest.indexOf(":");
  if (colon <= 0 || colon === rest.length - 1) return undefined;
  return { id: rest.slice(0, colon), encrypted: rest.slice(colon + 1) };
}

/** Reasoning models (o-series, gpt-5 but not the chat variant) refuse sampling parameters. */
export function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model) && !/^gpt-5(\.\d+)?-chat/.test(model);
}

function imagePart(block: ImageBlockParam): Part {
  const source = block.source;
  if (source.type === "base64") {
    return {
      type: "input_image",
      image_url: `data:${source.media_type};base64,${source.data}`,
      detail: "auto",
    };
  }
  if (source.type === "url") return { type: "input_image", image_url: source.url, detail: "auto" };
  throw invalidRequest(
    "image source type file is not supported by the Responses API lane; send base64 or url",
  );
}

function documentPart(block: DocumentBlockParam): Part {
  const source = block.source;
  if (source.type === "text" && typeof source.data === "string") {
    return { type: "input_text", text: source.data };
  }
  if (source.type === "base64" && source.data) {
    return {
      type: "input_file",
      filename: block.title ?? "document.pdf",
      file_data: `data:${source.media_type ?? "application/pdf"};base64,${source.data}`,
    };
  }
  if (source.type === "url" && source.url) return { type: "input_file", file_url: source.url };
  throw invalidRequest("document source must be base64, text or url for the Responses API lane");
}

function inputParts(blocks: ContentBlockParam[]): Part[] {
  const parts: Part[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "document") parts.push(documentPart(block));
  }
  return parts;
}

function toolOutput(block: ToolResultBlockParam): string | Part[] {
  const prefix = block.is_error ? "[tool error] " : "";
  const content = block.content;
  if (content === undefined || typeof content === "string") return prefix + (content ?? "");
  const parts: Part[] = [];
  for (const part of content) {
    if (part.type === "text") parts.push({ type: "input_text", text: (part as { text: string }).text });
    else if (part.type === "tool_reference") {
      parts.push({ type: "input_text", text: toolReferenceText(part as ToolReferenceBlockParam) });
    } else if (part.type === "image") parts.push(imagePart(part as ImageBlockParam));
    else if (part.type === "document") parts.push(documentPart(part as DocumentBlockParam));
  }
  if (parts.every((p) => p.type === "input_text")) return prefix + parts.map((p) => p.text).join("\n");
  return prefix ? [{ type: "input_text", text: prefix.trim() }, ...parts] : parts;
}

function systemText(content: MessageParam["content"]): string {
  return typeof content === "string"
    ? content
    : content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
}

function assistantItems(provider: string, blocks: ContentBlockParam[], out: Item[]): void {
  let text = "";
  const flush = () => {
    if (text) out.push({ type: "message", role: "assistant", content: text });
    text = "";
  };
  for (const block of blocks) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") {
      const carried = reasoningItemOf(provider, block);
      if (!carried) continue; // another provider's (or no) signature: it cannot be replayed here
      flush();
      out.push({
        type: "reasoning",
        id: carried.id,
        summary: block.thinking ? [{ type: "summary_text", text: block.thinking }] : [],
        encrypted_content: carried.encrypted,
      });
    } else if (block.type === "tool_use") {
      flush();
      out.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  flush();
}

/** Converts the conversation into Responses input items. */
export function toResponsesInput(provider: string, request: MessagesRequest): Item[] {
  const out: Item[] = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      out.push({ type: "message", role: "system", content: systemText(message.content) });
    } else if (typeof message.content === "string") {
      out.push({ type: "message", role: message.role, content: message.content });
    } else if (message.role === "assistant") {
      assistantItems(provider, message.content, out);
    } else {
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        out.push({ type: "function_call_output", call_id: block.tool_use_id, output: toolOutput(block) });
      }
      const parts = inputParts(message.content);
      if (parts.length) out.push({ type: "message", role: "user", content: parts });
    }
  }
  return out;
}

function effortOf(request: MessagesRequest): string | undefined {
  const effort = request.output_config?.effort;
  if (effort === "low" || effort === "medium" || effort === "high") return effort;
  if (effort === "max") return "high";
  if (request.thinking?.type !== "enabled") return undefined;
  const budget = request.thinking.budget_tokens;
  return budget < 4_096 ? "low" : budget < 16_384 ? "medium" : "high";
}

/** Builds the Responses body for `request` sent to `model` at provider `provider`. */
export function toResponsesRequest(
  provider: string,
  request: MessagesRequest,
  model: string,
  stream: boolean,
): Record<string, unknown> {
  if (request.stop_sequences?.length) {
    throw invalidRequest(
      `stop_sequences: provider ${provider} (OpenAI Responses API) has no stop sequences; remove them or ` +
        `use a Chat Completions provider`,
    );
  }
  const body: Record<string, unknown> = {
    model,
    input: toResponsesInput(provider, request),
    // Requests of max_tokens: 1 (quota probes) would be refused outright; 16 is the API's floor.
    max_output_tokens: Math.max(MIN_MAX_OUTPUT_TOKENS, request.max_tokens),
    store: false,
  };
  if (request.system !== undefined) {
    const text = systemText(request.system);
    if (text) body.instructions = text;
  }
  if (stream) body.stream = true;
  const reasoningModel = isReasoningModel(model);
  if (request.temperature !== undefined && !reasoningModel) body.temperature = request.temperature;
  if (request.top_p !== undefined && !reasoningModel) body.top_p = request.top_p;
  // A stable, opaque id for OpenAI's abuse detection; the client's own id never leaves the gateway.
  if (request.metadata?.user_id) body.safety_identifier = sha256Hex(request.metadata.user_id);
  // Adaptive thinking leaves it to the model: one that cannot reason answers without (OpenAI refuses
  // `reasoning` and encrypted reasoning for it). Claude Code asks for adaptive thinking on every turn.
  const thinking = request.thinking?.type === "enabled" ||
    (request.thinking?.type === "adaptive" && reasoningModel);
  if (thinking) {
    const effort = effortOf(request);
    body.reasoning = { ...(effort ? { effort } : {}), summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  } else if (reasoningModel && request.output_config?.effort) {
    body.reasoning = { effort: effortOf(request) };
  }
  const schema = outputSchemaOf(request);
  if (schema) body.text = { format: { type: "json_schema", name: "response", schema, strict: true } };
  const functions = functionToolsOf(request);
  const search = webSearchToolOf(request);
  if (functions.length || search) {
    const tools: Record<string, unknown>[] = functions.map((tool) => ({
      type: "function",
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.input_schema,
      // Responses functions are strict unless told otherwise; Anthropic tools are not unless they say so.
      strict: tool.strict === true,
    }));
    // Anthropic's web_search as OpenAI's own (openai_responses_search.ts), its sources included.
    if (search) {
      tools.push(responsesSearchTool(search, provider));
      body.include = [...(body.include as string[] | undefined ?? []), SEARCH_SOURCES_INCLUDE];
      if (search.max_uses !== undefined) body.max_tool_calls = search.max_uses;
    }
    body.tools = tools;
  }
  const choice = request.tool_choice;
  if (choice?.type === "tool" && choice.name === search?.name) {
    // A forced search: with no function to call instead, `required` can only be the search.
    body.tool_choice = functions.length ? "auto" : "required";
  } else if (choice) {
    if (choice.type === "auto") body.tool_choice = "auto";
    else if (choice.type === "any") body.tool_choice = "required";
    else if (choice.type === "none") body.tool_choice = "none";
    else body.tool_choice = { type: "function", name: choice.name };
    if (choice.type !== "none" && choice.disable_parallel_tool_use === true && request.tools?.length) {
      body.parallel_tool_calls = false;
    }
  }
  return body;
}
