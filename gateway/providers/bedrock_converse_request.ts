/**
 * Anthropic Messages request → Bedrock `Converse` request: content blocks become Converse's tagged blocks
 * (`text`, `image`, `document`, `toolUse`, `toolResult`, `reasoningContent`), system text goes to `system`,
 * sampling to `inferenceConfig`, tools to `toolConfig`. Converse has no `none` tool choice, so `none`
 * omits the choice (and the tools, when no earlier turn used one); Anthropic-only knobs (`top_k`,
 * `thinking`) travel in `additionalModelRequestFields`, which Claude on Converse reads.
 *
 * Prompt caching: for models with Converse prompt caching (`cachePoints`), a `cache_control` breakpoint on
 * a system block, a message block or a tool becomes a `cachePoint` block right after it (at most four, as
 * Anthropic allows); tool checkpoints only for Claude, which caches tools on Converse.
 */
import { invalidRequest } from "../errors.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import type {
  ContentBlockParam,
  MessageParam,
  MessagesRequest,
  ToolReferenceBlockParam,
  ToolResultBlockParam,
} from "../messages/types.ts";
import { toolReferenceText } from "../messages/types.ts";

type Block = Record<string, unknown>;
interface ConverseMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** Thinking signatures the gateway minted for Bedrock Converse answers carry this prefix. */
export const CONVERSE_SIGNATURE_PREFIX = "gw-bedrock:";

const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function imageBlock(block: ContentBlockParam): Block {
  if (block.type !== "image" || block.source.type !== "base64") {
    throw invalidRequest(
      "image blocks for Bedrock Converse must be base64 (the gateway does not fetch URLs)",
    );
  }
  const format = IMAGE_FORMATS[block.source.media_type];
  if (!format) {
    throw invalidRequest(`image media_type ${block.source.media_type} is not supported by Converse`);
  }
  return { image: { format, source: { bytes: block.source.data } } };
}

function documentBlock(block: ContentBlockParam, index: number): Block {
  if (block.type !== "document") throw new TypeError("not a document");
  if (block.source.type === "text" && typeof block.source.data === "string") {
    return { text: block.source.data };
  }
  if (block.source.type === "base64" && block.source.data && block.source.media_type === "application/pdf") {
    // Converse document names allow letters, digits, spaces, hyphens, parentheses and brackets only.
    const name = (block.title ?? `document ${index + 1}`).replace(/[^A-Za-z0-9 ()[\]-]/g, " ").trim() ||
      `document ${index + 1}`;
    return { document: { format: "pdf", name: name.slice(0, 200), source: { bytes: block.source.data } } };
  }
  throw invalidRequest("document blocks for Bedrock Converse must be base64 PDF or text");
}

function toolResultBlock(block: ToolResultBlockParam): Block {
  const content: Block[] = [];
  if (typeof block.content === "string") content.push({ text: block.content });
  else {
    for (const part of block.content ?? []) {
      if (part.type === "text") content.push({ text: (part as { text: string }).text });
      else if (part.type === "image") content.push(imageBlock(part as ContentBlockParam));
      else if (part.type === "tool_reference") {
        content.push({ text: toolReferenceText(part as ToolReferenceBlockParam) });
      }
    }
  }
  // Converse refuses an empty toolResult content list; an empty string says "no output" faithfully.
  if (!content.length) content.push({ text: "" });
  return {
    toolResult: { toolUseId: block.tool_use_id, content, status: block.is_error ? "error" : "success" },
  };
}

const CACHE_POINT: Block = { cachePoint: { type: "default" } };
const MAX_CACHE_POINTS = 4;

/** Where `cache_control` breakpoints may become `cachePoint`s, and how many are left. */
interface CachePoints {
  tools: boolean;
  left: number;
}

/** Which parts of a Converse request a model caches: none, system and messages (Nova), or tools too (Claude). */
export function cachePointsOf(model: string): { tools: boolean } | undefined {
  // Base ids, cross-region profiles (`us.`, `apac.`, `global.`) and profile ARNs alike.
  if (/(^|[./])anthropic\.claude-/.test(model)) return { tools: true };
  if (/(^|[./])amazon\.nova-/.test(model)) return { tools: false };
  return undefined;
}

function cached(block: unknown, points: CachePoints | undefined): boolean {
  if (!points || points.left <= 0) return false;
  const control = (block as { cache_control?: unknown }).cache_control;
  if (!control || typeof control !== "object") return false;
  points.left--;
  return true;
}

function contentBlocks(message: MessageParam, points?: CachePoints): Block[] {
  if (typeof message.content === "string") return message.content ? [{ text: message.content }] : [];
  const out: Block[] = [];
  message.content.forEach((block, index) => {
    const before = out.length;
    switch (block.type) {
      case "text":
        if (block.text) out.push({ text: block.text });
        break;
      case "image":
        out.push(imageBlock(block));
        break;
      case "document":
        out.push(documentBlock(block, index));
        break;
      case "tool_use":
        out.push({ toolUse: { toolUseId: block.id, name: block.name, input: block.input ?? {} } });
        break;
      case "tool_result":
        out.push(toolResultBlock(block));
        break;
      case "thinking":
        // Only reasoning this provider produced can go back: others' signatures would be refused.
        if (block.signature.startsWith(CONVERSE_SIGNATURE_PREFIX)) {
          const signature = block.signature.slice(CONVERSE_SIGNATURE_PREFIX.length);
          out.push({ reasoningContent: { reasoningText: { text: block.thinking, signature } } });
        }
        break;
    }
    if (out.length > before && cached(block, points)) out.push(CACHE_POINT);
  });
  return out;
}

/** System blocks, split after each cached block with a `cachePoint` between. */
function systemBlocks(content: string | ContentBlockParam[], points?: CachePoints): Block[] {
  if (typeof content === "string" || !points) {
    const text = systemText(content);
    return text ? [{ text }] : [];
  }
  const out: Block[] = [];
  let texts: string[] = [];
  for (const block of content) {
    if (block.type !== "text") continue;
    texts.push(block.text);
    if (cached(block, points)) {
      out.push({ text: texts.join("\n") }, CACHE_POINT);
      texts = [];
    }
  }
  if (texts.length && texts.join("\n")) out.push({ text: texts.join("\n") });
  return out;
}

function systemText(content: string | ContentBlockParam[]): string {
  return typeof content === "string"
    ? content
    : content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
}

/**
 * Builds the Converse request body for `request` (the model travels in the URL); `caching` (from
 * {@link cachePointsOf}) turns `cache_control` breakpoints into `cachePoint` blocks.
 */
export function toConverseRequest(
  request: MessagesRequest,
  caching?: { tools: boolean },
): Record<string, unknown> {
  const points: CachePoints | undefined = caching
    ? { tools: caching.tools, left: MAX_CACHE_POINTS }
    : undefined;
  if (outputSchemaOf(request)) {
    throw invalidRequest("structured outputs (output_config.format) are not supported by Bedrock Converse");
  }
  const system: Block[] = [];
  if (request.system !== undefined) system.push(...systemBlocks(request.system, points));
  const messages: ConverseMessage[] = [];
  let usedTools = false;
  for (const message of request.messages) {
    if (message.role === "system") {
      const text = systemText(message.content);
      if (text) system.push({ text });
      continue;
    }
    const content = contentBlocks(message, points);
    usedTools ||= content.some((b) => "toolUse" in b || "toolResult" in b);
    if (!content.length) continue;
    const last = messages.at(-1);
    // Converse wants strictly alternating roles: consecutive turns of one role become one.
    if (last && last.role === message.role) last.content.push(...content);
    else messages.push({ role: message.role, content });
  }
  const body: Record<string, unknown> = { messages };
  if (system.length) body.system = system;
  const inference: Record<string, unknown> = { maxTokens: request.max_tokens };
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.top_p !== undefined) inference.topP = request.top_p;
  if (request.stop_sequences?.length) inference.stopSequences = request.stop_sequences;
  body.inferenceConfig = inference;
  const extra: Record<string, unknown> = {};
  if (request.top_k !== undefined) extra.top_k = request.top_k;
  if (request.thinking && request.thinking.type !== "disabled") extra.thinking = request.thinking;
  if (Object.keys(extra).length) body.additionalModelRequestFields = extra;
  const choice = request.tool_choice;
  if (request.tools?.length && (choice?.type !== "none" || usedTools)) {
    const tools: Block[] = [];
    for (const tool of request.tools) {
      tools.push({
        toolSpec: {
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: { json: tool.input_schema },
        },
      });
      if (points?.tools && cached(tool, points)) tools.push(CACHE_POINT);
    }
    const toolConfig: Record<string, unknown> = { tools };
    if (choice?.type === "auto") toolConfig.toolChoice = { auto: {} };
    else if (choice?.type === "any") toolConfig.toolChoice = { any: {} };
    else if (choice?.type === "tool") toolConfig.toolChoice = { tool: { name: choice.name } };
    body.toolConfig = toolConfig;
  }
  return body;
}
