/**
 * A loopback OpenAI Responses API server (`POST /v1/responses`). Requests are checked as OpenAI checks them
 * (responses_validate.ts); each fixture is one generation per turn, answered as a whole `response` object
 * or streamed as OpenAI streams it: `event:` and `data:` lines, every event with its `sequence_number`,
 * `obfuscation` padding on deltas, `*.added`/`*.done` around every item and part, and no `[DONE]`. Reasoning
 * items carry `encrypted_content` only when the request `include`s it, summaries only when it asks for them,
 * and a replayed reasoning item must carry the encrypted content this server issued for its id.
 */
import { type Framing, namedFrame, sseBody } from "./sse_body.ts";
import {
  cutJson,
  type FixtureEntry,
  fixtureFor,
  json,
  type MockUpstream,
  sse,
  startMock,
} from "./mock_server.ts";
import { validateResponsesRequest } from "./responses_validate.ts";

/** One output item a generation produces. */
export type OutputSpec =
  | { type: "reasoning"; summary?: string[]; raw?: string }
  | { type: "message"; text?: string; refusal?: string; structured?: { answer: unknown } }
  | { type: "function_call"; name: string; arguments: string };

/** One generation. */
export interface ResponsesGeneration {
  output: OutputSpec[];
  /** `completed` (default), `incomplete` or `failed`. */
  status?: "completed" | "incomplete" | "failed";
  /** Why an incomplete response stopped. */
  incompleteReason?: "max_output_tokens" | "content_filter";
  /** The error of a failed response. */
  error?: { code: string; message: string };
  usage: { input: number; cached?: number; output: number; reasoning?: number };
  /** Streams end with this `error` event after the output (the whole answer is then an HTTP error). */
  errorEvent?: { code: string; message: string; status: number };
  /** Adds events no client knows (a future event type, a keepalive) to the stream. */
  unknownEvents?: boolean;
}

/** A scripted model. */
export interface ResponsesFixture {
  /** Generations by turn: the number of `function_call_output` items in the input picks one (last repeats). */
  turns: ResponsesGeneration[];
  /** Stream framing (cuts, split writes). */
  framing?: Framing;
  /** Answer with this HTTP status and body instead. */
  status?: number;
  errorBody?: unknown;
  headers?: Record<string, string>;
}

/** What the structured fixtures answer without a format: prose, as a real model would. */
export const PROSE = "Ada Lovelace was 36.";

const SECRET = "mock-org-key";
const encryptedFor = (id: string) => `gAAAA${btoa(`${id}|${SECRET}`)}`;

function pieces(text: string, size = 5): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

/** The whole output items of a generation, as the request shapes them. */
function outputItems(gen: ResponsesGeneration, model: string, turn: number, body: Record<string, unknown>) {
  const include = (body.include ?? []) as string[];
  const summaries = (body.reasoning as { summary?: string } | undefined)?.summary !== undefined;
  const format = (body.text as { format?: { type?: string } } | undefined)?.format?.type === "json_schema";
  return gen.output.map((spec, i) => {
    const tag = `${model.replace(/[^a-z0-9]/gi, "")}${turn}${i}`;
    if (spec.type === "reasoning") {
      const id = `rs_${tag}`;
      const item: Record<string, unknown> = {
        id,
        type: "reasoning",
        summary: summaries ? (spec.summary ?? []).map((text) => ({ type: "summary_text", text })) : [],
      };
      if (spec.raw) item.content = [{ type: "reasoning_text", text: spec.raw }];
      if (include.includes("reasoning.encrypted_content")) item.encrypted_content = encryptedFor(id);
      return item;
    }
    if (spec.type === "function_call") {
      return {
        id: `fc_${tag}`,
        type: "function_call",
        status: "completed",
        arguments: spec.arguments,
        call_id: `call_${tag}`,
        name: spec.name,
      };
    }
    const text = spec.structured ? (format ? JSON.stringify(spec.structured.answer) : PROSE) : spec.text;
    const content: Record<string, unknown>[] = [];
    if (text !== undefined) content.push({ type: "output_text", annotations: [], logprobs: [], text });
    if (spec.refusal !== undefined) content.push({ type: "refusal", refusal: spec.refusal });
    return { id: `msg_${tag}`, type: "message", status: "completed", content, role: "assistant" };
  });
}

function responseObject(
  gen: ResponsesGeneration,
  model: string,
  body: Record<string, unknown>,
  output: unknown[],
): Record<string, unknown> {
  const status = gen.status ?? "completed";
  return {
    id: "resp_mock",
    object: "response",
    created_at: 1_700_000_000,
    status,
    background: false,
    error: status === "failed" ? gen.error ?? { code: "server_error", message: "The model failed." } : null,
    incomplete_details: status === "incomplete"
      ? { reason: gen.incompleteReason ?? "max_output_tokens" }
      : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null, ...(body.reasoning as object) },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: {
      input_tokens: gen.usage.input,
      input_tokens_details: { cached_tokens: gen.usage.cached ?? 0 },
      output_tokens: gen.usage.output,
      output_tokens_details: { reasoning_tokens: gen.usage.reasoning ?? 0 },
      total_tokens: gen.usage.input + gen.usage.output,
    },
    user: null,
    metadata: {},
  };
}

/** The events of one streamed generation, in OpenAI's order. */
function streamEvents(gen: ResponsesGeneration, whole: Record<string, unknown>): string[] {
  let seq = 0;
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    frames.push(namedFrame(type, { type, sequence_number: seq++, ...fields }));
  const pad = (delta: string) => ({ delta, obfuscation: "x".repeat((delta.length % 7) + 3) });
  const pending = {
    ...whole,
    status: "in_progress",
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
  };
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  if (gen.unknownEvents) emit("response.mystery_feature.progress", { item_id: "x", output_index: 0 });
  (whole.output as Record<string, unknown>[]).forEach((item, output_index) => {
    const item_id = item.id;
    const at = { item_id, output_index };
    if (item.type === "reasoning") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, summary: [], content: undefined, encrypted_content: undefined },
      });
      (item.summary as Array<{ text: string }>).forEach(({ text }, summary_index) => {
        emit("response.reasoning_summary_part.added", {
          ...at,
          summary_index,
          part: { type: "summary_text", text: "" },
        });
        for (const d of pieces(text)) {
          emit("response.reasoning_summary_text.delta", { ...at, summary_index, ...pad(d) });
        }
        emit("response.reasoning_summary_text.done", { ...at, summary_index, text });
        emit("response.reasoning_summary_part.done", {
          ...at,
          summary_index,
          part: { type: "summary_text", text },
        });
      });
      for (const { text } of (item.content ?? []) as Array<{ text: string }>) {
        for (const d of pieces(text)) {
          emit("response.reasoning_text.delta", { ...at, content_index: 0, ...pad(d) });
        }
        emit("response.reasoning_text.done", { ...at, content_index: 0, text });
      }
    } else if (item.type === "function_call") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      const args = item.arguments as string;
      for (const d of pieces(args, 4)) emit("response.function_call_arguments.delta", { ...at, ...pad(d) });
      emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: args });
    } else {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      (item.content as Array<Record<string, unknown>>).forEach((part, content_index) => {
        const empty = part.type === "refusal" ? { type: "refusal", refusal: "" } : { ...part, text: "" };
        emit("response.content_part.added", { ...at, content_index, part: empty });
        if (part.type === "refusal") {
          for (const d of pieces(part.refusal as string)) {
            emit("response.refusal.delta", { ...at, content_index, delta: d });
          }
          emit("response.refusal.done", { ...at, content_index, refusal: part.refusal });
        } else {
          for (const d of pieces(part.text as string)) {
            emit("response.output_text.delta", { ...at, content_index, ...pad(d), logprobs: [] });
          }
          emit("response.output_text.done", { ...at, content_index, text: part.text, logprobs: [] });
        }
        emit("response.content_part.done", { ...at, content_index, part });
      });
    }
    emit("response.output_item.done", { output_index, item });
    if (gen.unknownEvents) emit("keepalive", {});
  });
  if (gen.errorEvent) {
    emit("error", { code: gen.errorEvent.code, message: gen.errorEvent.message, param: null });
    return frames;
  }
  const status = whole.status as string;
  emit(status === "completed" ? "response.completed" : `response.${status}`, { response: whole });
  return frames;
}

/** Starts the server; requests must carry `Authorization: Bearer <apiKey>`. */
export function startResponsesMock(
  fixtures: Record<string, FixtureEntry<ResponsesFixture>>,
  apiKey: string,
): Promise<MockUpstream> {
  return startMock((request, mock) => {
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return json({
        error: {
          message:
            "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }, 401);
    }
    if (request.path !== "/v1/responses") return json({ error: { message: "Invalid URL" } }, 404);
    const problem = validateResponsesRequest(request.body);
    if (problem) return json(problem, 400);
    const input = Array.isArray(request.body.input)
      ? request.body.input as Array<Record<string, unknown>>
      : [];
    for (const item of input) {
      if (item.type === "reasoning" && item.encrypted_content !== encryptedFor(String(item.id))) {
        return json({
          error: {
            message: `The encrypted content for item ${item.id} could not be verified.`,
            type: "invalid_request_error",
            param: null,
            code: "invalid_encrypted_content",
          },
        }, 400);
      }
    }
    const model = String(request.body.model);
    const fixture = fixtureFor(fixtures, model, request);
    if (!fixture) {
      return json(
        { error: { message: `The model '${model}' does not exist`, code: "model_not_found" } },
        404,
      );
    }
    if (fixture.status) return json(fixture.errorBody ?? {}, fixture.status, fixture.headers);
    const turn = Math.min(
      input.filter((i) => i.type === "function_call_output").length,
      fixture.turns.length - 1,
    );
    const gen = fixture.turns[turn];
    const whole = responseObject(gen, model, request.body, outputItems(gen, model, turn, request.body));
    if (request.body.stream !== true) {
      if (gen.errorEvent) {
        return json({
          error: { message: gen.errorEvent.message, type: "requests", code: gen.errorEvent.code },
        }, gen.errorEvent.status);
      }
      return fixture.framing?.cutAfter !== undefined ? cutJson(whole) : json(whole);
    }
    return sse(sseBody(streamEvents(gen, whole), fixture.framing, () => mock.cancelled++));
  });
}
