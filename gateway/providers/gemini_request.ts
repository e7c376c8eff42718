/**
 * Anthropic Messages request → Gemini `generateContent` request. Tool results need the function's name,
 * looked up from the matching earlier `tool_use`; Gemini 3 thought signatures travel inside our tool ids
 * (`<id>__thought__<signature>`) so they come back on the `functionCall` part of the next turn. Tool schemas
 * go as `parametersJsonSchema` (v1beta), which accepts plain JSON Schema, minus `$schema`.
 */
import { invalidRequest } from "../errors.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import { functionToolsOf, webSearchToolOf } from "../messages/web_search.ts";
import { googleSearchTool } from "./gemini_search.ts";
import {
  type ContentBlockParam,
  type MessagesRequest,
  type ToolReferenceBlockParam,
  toolReferenceText,
  type ToolResultBlockParam,
} from "../messages/types.ts";

/** Separates a tool id from a Gemini thought signature embedded in it. */
export const THOUGHT_SEPARATOR = "__thought__";

type Part = Record<string, unknown>;
interface Content {
  role: "user" | "model";
  parts: Part[];
}

/** Splits `<id>__thought__<signature>` into its two halves. */
export function splitToolId(id: string): { id: string; signature?: string } {
  const at = id.indexOf(THOUGHT_SEPARATOR);
  return at < 0 ? { id } : { id: id.slice(0, at), signature: id.slice(at + THOUGHT_SEPARATOR.length) };
}

function resultText(content: ToolResultBlockParam["content"]): { text: string; parts: Part[] } {
  if (content === undefined) return { text: "", parts: [] };
  if (typeof content === "string") return { text: content, parts: [] };
  const texts: string[] = [];
  const parts: Part[] = [];
  for (const block of content) {
    if (block.type === "text") texts.push((block as { text: string }).text);
    else if (block.type === "tool_reference") texts.push(toolReferenceText(block as ToolReferenceBlockParam));
    else if (block.type === "image") parts.push(mediaPart(block as ContentBlockParam));
  }
  return { text: texts.join("\n"), parts };
}

function mediaPart(block: ContentBlockParam): Part {
  if (block.type === "image" && block.source.type === "base64") {
    return { inlineData: { mimeType: block.source.media_type, data: block.source.data } };
  }
  if (block.type === "document" && block.source.type === "base64" && block.source.data) {
    return {
      inlineData: { mimeType: block.source.media_type ?? "application/pdf", data: block.source.data },
    };
  }
  if (block.type === "document" && block.source.type === "text" && typeof block.source.data === "string") {
    return { text: block.source.data };
  }
  throw invalidRequest(`${block.type} blocks for Gemini must be base64 (the gateway does not fetch URLs)`);
}

function systemText(content: string | ContentBlockParam[]): string {
  return typeof content === "string"
    ? content
    : content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
}

function stripSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  if (!("$schema" in schema)) return schema;
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

/** Builds the `contents` and `systemInstruction` of the Gemini request. */
function toContents(request: MessagesRequest): { contents: Content[]; system: string[] } {
  const system: string[] = [];
  if (request.system !== undefined) {
    const text = systemText(request.system);
    if (text) system.push(text);
  }
  const names = new Map<string, string>();
  const contents: Content[] = [];
  const push = (role: Content["role"], parts: Part[]) => {
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    if (message.role === "system") {
      system.push(systemText(message.content));
      continue;
    }
    const role = message.role === "assistant" ? "model" : "user";
    if (typeof message.content === "string") {
      push(role, [{ text: message.content }]);
      continue;
    }
    const parts: Part[] = [];
    for (const block of message.content) {
      if (block.type === "text") parts.push({ text: block.text });
      else if (block.type === "image" || block.type === "document") parts.push(mediaPart(block));
      else if (block.type === "tool_use") {
        const { id, signature } = splitToolId(block.id);
        names.set(block.id, block.name);
        const part: Part = { functionCall: { id, name: block.name, args: block.input ?? {} } };
        if (signature) part.thoughtSignature = signature;
        parts.push(part);
      } else if (block.type === "tool_result") {
        const name = names.get(block.tool_use_id);
        if (!name) {
          throw invalidRequest(`tool_result ${block.tool_use_id} does not follow a tool_use with that id`);
        }
        const { text, parts: extra } = resultText(block.content);
        parts.push({
          functionResponse: {
            id: splitToolId(block.tool_use_id).id,
            name,
            response: block.is_error ? { error: text } : { result: text },
          },
        });
        parts.push(...extra);
      }
    }
    push(role, parts);
  }
  return { contents, system };
}

/** Builds the Gemini request body for `request`. */
export function toGeminiRequest(request: MessagesRequest): Record<string, unknown> {
  const { contents, system } = toContents(request);
  const body: Record<string, unknown> = { contents };
  if (system.length) body.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  const generation: Record<string, unknown> = { maxOutputTokens: request.max_tokens };
  if (request.stop_sequences?.length) generation.stopSequences = request.stop_sequences;
  if (request.temperature !== undefined) generation.temperature = request.temperature;
  if (request.top_p !== undefined) generation.topP = request.top_p;
  if (request.top_k !== undefined) generation.topK = request.top_k;
  if (request.thinking?.type === "enabled") {
    generation.thinkingConfig = { thinkingBudget: request.thinking.budget_tokens, includeThoughts: true };
  } else if (request.thinking?.type === "adaptive") {
    generation.thinkingConfig = { includeThoughts: true };
  }
  const schema = outputSchemaOf(request);
  if (schema) {
    // `responseJsonSchema` takes plain JSON Schema (unlike `responseSchema`'s OpenAPI subset) and needs the
    // JSON MIME type.
    generation.responseMimeType = "application/json";
    generation.responseJsonSchema = stripSchemaKeyword(schema);
  }
  body.generationConfig = generation;
  const functions = functionToolsOf(request);
  const search = webSearchToolOf(request);
  const tools: Record<string, unknown>[] = [];
  if (functions.length) {
    tools.push({
      functionDeclarations: functions.map((tool) => ({
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parametersJsonSchema: stripSchemaKeyword(tool.input_schema),
      })),
    });
  }
  // Anthropic's web_search as Google Search grounding (gemini_search.ts).
  if (search) tools.push(googleSearchTool(search, "gemini"));
  if (tools.length) body.tools = tools;
  const choice = request.tool_choice;
  // Function calling config names functions only: a choice of the search tool (or none to call) is left to the model.
  if (choice && functions.length && !(choice.type === "tool" && choice.name === search?.name)) {
    const config: Record<string, unknown> = {
      mode: choice.type === "auto" ? "AUTO" : choice.type === "none" ? "NONE" : "ANY",
    };
    if (choice.type === "tool") config.allowedFunctionNames = [choice.name];
    body.toolConfig = { functionCallingConfig: config };
  }
  return body;
}
