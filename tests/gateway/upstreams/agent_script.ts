/**
 * The scripted agent model behind the Claude Code lanes: each upstream stand-in reads the conversation in its
 * own wire format into an {@link AgentView} and answers what a coding model would. When the last turn
 * carries a tool result it ends the turn with text quoting that result; when the user asked for a shell
 * command (a line `$ <command>`) and a `Bash` tool is offered it calls that tool; otherwise it falls back to
 * the cloud stand-ins' script ({@link decideAnswer}). Nothing is fixed per test: the answer depends only on
 * the request, so a tool result that never arrives shows up as a second tool call, not as a pass.
 */
import { type Answer, decideAnswer, geminiChunks } from "./cloud_answers.ts";
import type { GeminiFixture } from "./gemini_mock.ts";
import { delta, type OpenAiFixture } from "./openai_mock.ts";
import type { ResponsesFixture } from "./responses_mock.ts";

/** What the scripted model reads from a request, whatever its wire format. */
export interface AgentView {
  /** Names of the function tools offered, in order. */
  tools: string[];
  /** Text of the user turns, joined (where a `$ <command>` line is looked for). */
  prompt: string;
  /** The text of the tool result in the last turn, when the last turn carries one (errors included). */
  toolResult?: string;
  /** The id the tool result answers (`tool_use_id`, `tool_call_id`, `call_id`, `toolUseId`). */
  toolResultFor?: string;
  /** Ids of the tool calls earlier in the conversation (to check the result answers one of them). */
  callIds: string[];
}

type Body = Record<string, unknown>;
const COMMAND_LINE = /^\$ (.+)$/m;

/** The answer for a view. */
export function decideAgentAnswer(view: AgentView): Answer {
  if (view.toolResult !== undefined) return decideAnswer(undefined, view.toolResult);
  const command = COMMAND_LINE.exec(view.prompt)?.[1];
  if (command && view.tools.includes("Bash")) {
    const args = JSON.stringify({ command, description: "Run the requested command" });
    const cut = Math.floor(args.length / 2);
    return { kind: "tool", id: "toolu_agent_1", name: "Bash", args: [args.slice(0, cut), args.slice(cut)] };
  }
  return decideAnswer(view.tools[0], undefined);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Body[]).flatMap((b) => typeof b.text === "string" ? [b.text] : []).join("\n");
}

/** Anthropic Messages bodies (pass-through, Bedrock InvokeModel, Vertex rawPredict). */
export function anthropicView(body: Body): AgentView {
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  const result = Array.isArray(last?.content)
    ? (last.content as Body[]).find((b) => b.type === "tool_result")
    : undefined;
  return {
    tools: ((body.tools ?? []) as Body[]).map((t) => String(t.name)),
    prompt: messages.filter((m) => m.role === "user").map((m) => textOf(m.content)).join("\n"),
    toolResult: result ? textOf(result.content) : undefined,
    toolResultFor: result ? String(result.tool_use_id) : undefined,
    callIds: messages.flatMap((m) =>
      Array.isArray(m.content)
        ? (m.content as Body[]).filter((b) => b.type === "tool_use").map((b) => String(b.id))
        : []
    ),
  };
}

/** Chat Completions bodies: results are `tool` messages after the assistant's `tool_calls`. */
export function chatView(body: Body): AgentView {
  const messages = (body.messages ?? []) as Body[];
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const result = messages.slice(lastAssistant + 1).find((m) => m.role === "tool");
  return {
    tools: ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name),
    prompt: messages.filter((m) => m.role === "user").map((m) => textOf(m.content)).join("\n"),
    toolResult: result ? textOf(result.content) : undefined,
    toolResultFor: result ? String(result.tool_call_id) : undefined,
    callIds: messages.flatMap((m) => ((m.tool_calls ?? []) as Body[]).map((c) => String(c.id))),
  };
}

/** Responses API bodies: results are `function_call_output` items after the last `function_call`. */
export function responsesView(body: Body): AgentView {
  const input = Array.isArray(body.input) ? body.input as Body[] : [];
  const lastMessage = input.findLastIndex((i) => i.type === "message" || i.role !== undefined);
  const result = input.slice(lastMessage + 1).find((i) => i.type === "function_call_output");
  return {
    tools: ((body.tools ?? []) as Body[]).map((t) => String(t.name)),
    prompt: input.filter((i) => i.role === "user").map((i) => textOf(i.content)).join("\n"),
    toolResult: result ? textOf(result.output) : undefined,
    toolResultFor: result ? String(result.call_id) : undefined,
    callIds: input.filter((i) => i.type === "function_call").map((i) => String(i.call_id)),
  };
}

/** Gemini bodies (API and Vertex): results are `functionResponse` parts of the last content. */
export function geminiView(body: Body): AgentView {
  const contents = (body.contents ?? []) as Array<{ role?: string; parts: Body[] }>;
  const response = contents.at(-1)?.parts.find((p) => p.functionResponse)?.functionResponse as
    | { name: string; response: { result?: unknown; error?: unknown } }
    | undefined;
  const declarations = ((body.tools ?? []) as Array<{ functionDeclarations?: Body[] }>)
    .flatMap((t) => t.functionDeclarations ?? []);
  return {
    tools: declarations.map((d) => String(d.name)),
    prompt: contents.filter((c) => c.role === "user").map((c) => textOf(c.parts)).join("\n"),
    toolResult: response ? String(response.response.result ?? response.response.error) : undefined,
    toolResultFor: response?.name,
    callIds: contents.flatMap((c) =>
      c.parts.filter((p) => p.functionCall).map((p) => String((p.functionCall as Body).name))
    ),
  };
}

/** Bedrock Converse bodies: results are `toolResult` blocks of the last message. */
export function converseView(body: Body): AgentView {
  const messages = (body.messages ?? []) as Array<{ role: string; content: Body[] }>;
  const result = messages.at(-1)?.content.find((b) => b.toolResult)?.toolResult as
    | { toolUseId: string; content: Body[] }
    | undefined;
  const tools = (body.toolConfig as { tools?: Array<{ toolSpec: { name: string } }> } | undefined)?.tools ??
    [];
  return {
    tools: tools.map((t) => t.toolSpec.name),
    prompt: messages.filter((m) => m.role === "user").map((m) => textOf(m.content)).join("\n"),
    toolResult: result ? textOf(result.content) : undefined,
    toolResultFor: result?.toolUseId,
    callIds: messages.flatMap((m) =>
      m.content.filter((b) => b.toolUse).map((b) => String((b.toolUse as Body).toolUseId))
    ),
  };
}

/** An answer as a Chat Completions fixture (the call's arguments in two fragments). */
export function chatFixture(answer: Answer): OpenAiFixture {
  const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
  if (answer.kind === "text") {
    return {
      chunks: [
        delta({ role: "assistant", content: "" }),
        ...answer.parts.map((content) => delta({ content })),
        delta({}, "stop"),
      ],
      usage,
    };
  }
  const call = (index: number, fields: Body) => delta({ tool_calls: [{ index, ...fields }] });
  return {
    chunks: [
      delta({ role: "assistant", content: null }),
      call(0, { id: "call_agent_1", type: "function", function: { name: answer.name, arguments: "" } }),
      ...answer.args.map((a) => call(0, { function: { arguments: a } })),
      delta({}, "tool_calls"),
    ],
    usage,
  };
}

/** An answer as a one-turn Responses fixture. */
export function responsesFixture(answer: Answer): ResponsesFixture {
  const output = answer.kind === "text"
    ? [{ type: "message" as const, text: answer.parts.join("") }]
    : [{ type: "function_call" as const, name: answer.name, arguments: answer.args.join("") }];
  return { turns: [{ output, usage: { input: 12, output: 5 } }] };
}

/** An answer as a Gemini fixture. */
export function geminiFixture(answer: Answer): GeminiFixture {
  return { chunks: geminiChunks(answer) };
}
