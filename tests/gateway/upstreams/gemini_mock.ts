/**
 * A mock Gemini API (`generateContent`, `streamGenerateContent?alt=sse`, `countTokens`). A fixture is the
 * list of streamed `GenerateContentResponse`s; the whole answer merges them as Gemini does.
 */
import { dataFrame, type Framing, sseBody } from "./sse_body.ts";
import {
  cutJson,
  type FixtureEntry,
  fixtureFor,
  json,
  type MockUpstream,
  sse,
  startMock,
} from "./mock_server.ts";

/** One scripted generation. */
export interface GeminiFixture {
  /** Streamed responses: `{candidates:[{content:{parts},finishReason}], usageMetadata}`. */
  chunks: Array<Record<string, unknown>>;
  /** Stream framing. */
  framing?: Framing;
  /** Answer with this HTTP status and a Gemini error body. */
  status?: number;
  /** Gemini error status string for `status`. */
  errorStatus?: string;
}

type Part = Record<string, unknown>;

/** Merges streamed responses into the equivalent whole response. */
export function mergeGemini(fixture: GeminiFixture): Record<string, unknown> {
  const parts: Part[] = [];
  let finishReason: unknown;
  let usage: unknown;
  let feedback: unknown;
  for (const chunk of fixture.chunks) {
    const candidate = (chunk.candidates as Array<Record<string, unknown>> | undefined)?.[0];
    for (const part of ((candidate?.content as { parts?: Part[] })?.parts ?? [])) {
      const last = parts.at(-1);
      const mergeable = typeof part.text === "string" && last && typeof last.text === "string" &&
        Boolean(last.thought) === Boolean(part.thought) && !last.thoughtSignature;
      if (mergeable) {
        last.text = String(last.text) + part.text;
        if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
      } else parts.push({ ...part });
    }
    if (candidate?.finishReason) finishReason = candidate.finishReason;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
    if (chunk.promptFeedback) feedback = chunk.promptFeedback;
  }
  const body: Record<string, unknown> = { usageMetadata: usage, modelVersion: "mock" };
  if (feedback && !parts.length) body.promptFeedback = feedback;
  else body.candidates = [{ content: { role: "model", parts }, finishReason, index: 0 }];
  return body;
}

/** Starts the mock; requests must carry `x-goog-api-key: <apiKey>`. */
export function startGeminiMock(
  fixtures: Record<string, FixtureEntry<GeminiFixture>>,
  apiKey: string,
): Promise<MockUpstream> {
  return startMock((request, mock) => {
    if (request.headers["x-goog-api-key"] !== apiKey) {
      return json({ error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } }, 400);
    }
    const match = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|countTokens)/.exec(
      request.path,
    );
    if (!match) return json({ error: { code: 404, message: "not found", status: "NOT_FOUND" } }, 404);
    const model = decodeURIComponent(match[1]);
    if (match[2] === "countTokens") {
      const chars = JSON.stringify((request.body.generateContentRequest as Record<string, unknown>).contents)
        .length;
      return json({ totalTokens: Math.ceil(chars / 4) });
    }
    const fixture = fixtureFor(fixtures, model, request);
    if (!fixture) {
      return json(
        { error: { code: 404, message: `models/${model} is not found`, status: "NOT_FOUND" } },
        404,
      );
    }
    if (fixture.status) {
      return json(
        {
          error: {
            code: fixture.status,
            message: "Resource has been exhausted",
            status: fixture.errorStatus,
          },
        },
        fixture.status,
      );
    }
    if (match[2] === "generateContent") {
      return fixture.framing?.cutAfter !== undefined
        ? cutJson(mergeGemini(fixture))
        : json(mergeGemini(fixture));
    }
    if (!request.path.includes("alt=sse")) {
      return json({ error: { code: 400, message: "want alt=sse" } }, 400);
    }
    return sse(sseBody(fixture.chunks.map((c) => dataFrame(c)), fixture.framing, () => mock.cancelled++));
  });
}
