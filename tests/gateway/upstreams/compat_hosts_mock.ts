/**
 * One loopback server standing in for every OpenAI-compatible host, each under its own path prefix
 * (`/groq/v1/chat/completions`). Each host enforces its documented behaviour from {@link HOST_RULES} —
 * written from the hosts' own documentation, independently of the gateway's preset table — so a preset with a
 * wrong quirk gets the host's real error (Mistral's 422 `extra_forbidden`, Cerebras's 400 on
 * `parallel_tool_calls`) or loses what the host sends (reasoning in a field the gateway does not read).
 */
import { dataFrame, sseBody } from "./sse_body.ts";
import { json, type MockUpstream, sse, startMock } from "./mock_server.ts";
import { chatFixture, chatView, decideAgentAnswer } from "./agent_script.ts";
import { accumulateChatCompletion } from "./openai_mock.ts";

/** What one host accepts and how it answers. */
export interface HostRules {
  /** The Bearer key it expects; undefined for a keyless local server. */
  key?: string;
  /** Top-level fields it refuses, with the status it refuses them with. */
  refuses: string[];
  /** HTTP status of a refusal (Mistral validates with pydantic: 422). */
  refusalStatus?: number;
  /** tool_choice strings it accepts (object choices are accepted unless `forced` is false). */
  toolChoices: string[];
  /** False when it cannot force a tool call (it would silently ignore the choice). */
  forced?: boolean;
  /** Tool call ids must be nine alphanumerics. */
  nineCharIds?: boolean;
  /** Accepts `response_format: json_schema`. */
  jsonSchema?: boolean;
  /** The field its reasoning text comes in. */
  reasoningField: "reasoning_content" | "reasoning";
  /** `always`: usage ends every stream; `stream_options`: only when asked for. */
  streamUsage: "always" | "stream_options";
}

/** The hosts' documented behaviour (as of 2026). */
export const HOST_RULES: Record<string, HostRules> = {
  openrouter: {
    key: "sk-or-test-0001",
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning",
    streamUsage: "stream_options",
  },
  groq: {
    key: "gsk-test-0002",
    refuses: ["logprobs", "logit_bias", "top_logprobs"],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning",
    streamUsage: "stream_options",
  },
  deepseek: {
    key: "sk-ds-test-0003",
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    jsonSchema: false,
    reasoningField: "reasoning_content",
    streamUsage: "stream_options",
  },
  mistral: {
    key: "mistral-test-0004",
    refuses: ["stream_options", "max_completion_tokens", "user"],
    refusalStatus: 422,
    toolChoices: ["auto", "none", "any", "required"],
    nineCharIds: true,
    reasoningField: "reasoning_content",
    streamUsage: "always",
  },
  xai: {
    key: "xai-test-0005",
    refuses: ["stop", "presence_penalty", "frequency_penalty"],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning_content",
    streamUsage: "stream_options",
  },
  together: {
    key: "together-test-0006",
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning",
    streamUsage: "always",
  },
  fireworks: {
    key: "fw-test-0007",
    refuses: [],
    toolChoices: ["auto", "none", "any", "required"],
    reasoningField: "reasoning_content",
    streamUsage: "always",
  },
  cerebras: {
    key: "csk-test-0008",
    refuses: ["parallel_tool_calls", "frequency_penalty", "presence_penalty", "logit_bias"],
    toolChoices: ["auto", "none"],
    forced: false,
    reasoningField: "reasoning",
    streamUsage: "stream_options",
  },
  ollama: {
    refuses: [],
    toolChoices: ["auto", "none"],
    forced: false,
    reasoningField: "reasoning",
    streamUsage: "stream_options",
  },
  vllm: {
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning",
    streamUsage: "stream_options",
  },
  lmstudio: {
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning_content",
    streamUsage: "always",
  },
  llamacpp: {
    refuses: [],
    toolChoices: ["auto", "none", "required"],
    reasoningField: "reasoning_content",
    streamUsage: "stream_options",
  },
};

/** The text every host answers with. */
export const answerOf = (host: string) => `Hi from ${host}.`;
/** The reasoning every host streams. */
export const REASONING = "Let me think.";
const USAGE = { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 };

function refusal(rules: HostRules, field: string, message?: string): Response {
  const status = rules.refusalStatus ?? 400;
  return status === 422
    ? json({
      object: "error",
      message: {
        detail: [{ type: "extra_forbidden", loc: ["body", field], msg: "Extra inputs are not permitted" }],
      },
      type: "invalid_request_error",
    }, 422)
    : json({
      error: {
        message: message ?? `Unsupported parameter: ${field}`,
        type: "invalid_request_error",
        param: field,
      },
    }, 400);
}

function check(rules: HostRules, body: Record<string, unknown>): Response | undefined {
  for (const field of rules.refuses) if (body[field] !== undefined) return refusal(rules, field);
  const choice = body.tool_choice;
  if (typeof choice === "string" && !rules.toolChoices.includes(choice)) {
    return refusal(rules, "tool_choice", `tool_choice ${choice} is not supported`);
  }
  if (typeof choice === "object" && rules.forced === false) return refusal(rules, "tool_choice");
  const format = body.response_format as { type?: string } | undefined;
  if (format?.type === "json_schema" && rules.jsonSchema === false) {
    return refusal(rules, "response_format", "This response_format type is unavailable now");
  }
  if (rules.nineCharIds) {
    for (const m of body.messages as Array<Record<string, unknown>>) {
      const ids = [m.tool_call_id, ...((m.tool_calls ?? []) as Array<{ id: string }>).map((c) => c.id)];
      if (ids.some((id) => id !== undefined && !/^[a-zA-Z0-9]{9}$/.test(String(id)))) {
        return refusal(rules, "messages", "Tool call id has to be a string of length 9 of a-z, A-Z, 0-9");
      }
    }
  }
  return undefined;
}

/**
 * Starts the server. With `agent`, every host answers as the scripted agent (agent_script.ts: a tool call or
 * the final text, decided from the conversation) instead of its fixed greeting, still under its own rules.
 */
export function startCompatHostsMock(agent = false): Promise<MockUpstream> {
  return startMock((request) => {
    const match = /^\/([a-z]+)\/v1\/chat\/completions$/.exec(request.path);
    const host = match?.[1] ?? "";
    const rules = HOST_RULES[host];
    if (!rules) return json({ error: { message: "no such host" } }, 404);
    if (rules.key && request.headers.authorization !== `Bearer ${rules.key}`) {
      return json({ error: { message: "Invalid API key", type: "invalid_request_error" } }, 401);
    }
    const refused = check(rules, request.body);
    if (refused) return refused;
    const model = String(request.body.model);
    const base = { id: "chatcmpl-host", object: "chat.completion.chunk", created: 1_700_000_000, model };
    const asked = (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
    if (agent) {
      const fixture = chatFixture(decideAgentAnswer(chatView(request.body)));
      if (request.body.stream !== true) return json(accumulateChatCompletion(fixture, model));
      const frames = fixture.chunks.map((chunk) => dataFrame({ ...base, ...chunk }));
      if (rules.streamUsage === "always" || asked) {
        frames.push(dataFrame({ ...base, choices: [], usage: fixture.usage }));
      }
      frames.push(dataFrame("[DONE]"));
      return sse(sseBody(frames));
    }
    if (request.body.stream !== true) {
      return json({
        ...base,
        object: "chat.completion",
        choices: [{
          index: 0,
          message: { role: "assistant", content: answerOf(host), [rules.reasoningField]: REASONING },
          finish_reason: "stop",
        }],
        usage: USAGE,
      });
    }
    const delta = (d: Record<string, unknown>, finish: string | null = null) =>
      dataFrame({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
    const frames = [
      delta({ role: "assistant", [rules.reasoningField]: REASONING }),
      delta({ content: answerOf(host) }),
      delta({}, "stop"),
    ];
    if (rules.streamUsage === "always" || asked) {
      frames.push(dataFrame({ ...base, choices: [], usage: USAGE }));
    }
    frames.push(dataFrame("[DONE]"));
    return sse(sseBody(frames));
  });
}
