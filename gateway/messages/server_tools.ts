/**
 * Anthropic server tools (`web_search_20250305`, `web_fetch_20250910`, `code_execution_*`, ...) run at
 * Anthropic: a request to an `anthropic` provider carries them, and their `server_tool_use` /
 * `web_search_tool_result` / `web_fetch_tool_result` blocks, unchanged. `web_search` alone has a native
 * equivalent elsewhere — Gemini's Google Search grounding and the OpenAI Responses `web_search` tool — so
 * those providers translate it (web_search.ts), and its blocks in earlier turns. Any other provider, or any
 * other server tool, would be dropped silently ("Did 0 searches"), so a request with one is refused there
 * with 400 `invalid_request_error` naming the tool, before any call.
 */
import { invalidRequest } from "../errors.ts";
import type { ProviderKind } from "../providers/contract.ts";
import type { MessagesRequest } from "./types.ts";
import { isCustomTool } from "./validate.ts";
import { isWebSearchType } from "./web_search.ts";

/** Message blocks only an Anthropic upstream understands. */
const SERVER_BLOCKS = new Set(["server_tool_use", "web_search_tool_result", "web_fetch_tool_result"]);

/** Provider kinds that run Anthropic's server tools. */
const RUNS_SERVER_TOOLS: ReadonlySet<ProviderKind> = new Set(["anthropic"]);

/** Provider kinds that translate `web_search` to a search of their own. */
const SEARCHES: ReadonlySet<ProviderKind> = new Set(["gemini", "openai-responses"]);

/** True when `provider` runs `block` of an earlier turn (as a translated web search's). */
function translatesBlock(block: Record<string, unknown>, searches: boolean): boolean {
  if (!searches) return false;
  if (block.type === "web_search_tool_result") return true;
  return block.type === "server_tool_use" && block.name === "web_search";
}

/** Throws 400 when `request` has a server tool (or its blocks) and `provider` cannot run it. */
export function refuseServerTools(
  request: MessagesRequest,
  provider: { name: string; kind: ProviderKind },
): void {
  if (RUNS_SERVER_TOOLS.has(provider.kind)) return;
  const searches = SEARCHES.has(provider.kind);
  request.tools?.forEach((tool, i) => {
    const raw = tool as unknown as Record<string, unknown>;
    if (isCustomTool(raw) || (searches && isWebSearchType(raw.type))) return;
    throw invalidRequest(
      `tools.${i}: server tool ${JSON.stringify(raw.name)} of type ${
        JSON.stringify(raw.type)
      } runs only on ` +
        `an Anthropic upstream${
          isWebSearchType(raw.type) ? " (or as Gemini's or OpenAI Responses' own search)" : ""
        }; provider ${provider.name} cannot run it (route the model to anthropic/..., or remove the tool)`,
    );
  });
  request.messages.forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block, j) => {
      const type = (block as { type?: unknown }).type;
      if (typeof type === "string" && SERVER_BLOCKS.has(type)) {
        if (translatesBlock(block as unknown as Record<string, unknown>, searches)) return;
        throw invalidRequest(
          `messages.${i}.content.${j}: a ${type} block (an Anthropic server tool's) cannot be sent to provider ` +
            `${provider.name}`,
        );
      }
    });
  });
}
