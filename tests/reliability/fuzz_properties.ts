/**
 * The fuzz targets of issue 30, each a fast-check property with the service it needs: the Messages API
 * validator (in-process and over HTTP through the real gateway app), every request translator (its output
 * must satisfy the upstream's schema), the SSE decoder (any chunking, even inside a UTF-8 character, yields
 * the same events), the OAuth endpoints' parameter handling (never a 5xx) and the compiler's frontmatter and
 * expression parsing (never a crash, always located diagnostics). `fuzz_test.ts` runs them with fixed seeds
 * in a time budget; `deno task fuzz` runs them with random seeds and prints counterexamples as tests.
 */
import fc from "fast-check";
import { createSseDecoder, encodeSseEvent, type SseEvent } from "@switchyard/lib/sse.ts";
import { GatewayError } from "../../gateway/errors.ts";
import { validateMessagesRequest } from "../../gateway/messages/validate.ts";
import type { MessagesRequest } from "../../gateway/messages/types.ts";
import { toChatRequest } from "../../gateway/providers/openai_request.ts";
import { OPENAI_QUIRKS } from "../../gateway/providers/openai.ts";
import { toGeminiRequest } from "../../gateway/providers/gemini_request.ts";
import { toConverseRequest } from "../../gateway/providers/bedrock_converse_request.ts";
import { toResponsesRequest } from "../../gateway/providers/openai_responses_request.ts";
import { validateResponsesRequest } from "../gateway/upstreams/responses_validate.ts";
import { startHarness } from "../gateway/harness.ts";
import { startAuthService } from "../auth/harness.ts";
import { compile } from "../../compiler/mod.ts";
import { expression, frontmatter, oauthParams, sseEvent } from "./fuzz_inputs.ts";
import {
  chatRequestSchema,
  converseRequestSchema,
  geminiRequestSchema,
  messagesRequest,
  mutatedRequest,
} from "./fuzz_messages.ts";

/** A property and what it holds open. */
export interface FuzzTarget {
  /** The property. */
  // Each target's property has its own tuple of generated values; runners only hand it to fc.check.
  // deno-lint-ignore no-explicit-any
  property: fc.IAsyncProperty<any>;
  /** Releases its servers. */
  close(): Promise<void>;
}

/** Runs `call`; a thrown error passes only when it is a GatewayError with a 4xx status. */
function refusedCleanly(call: () => unknown): { ok: true; value?: unknown } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    if (error instanceof GatewayError && error.status >= 400 && error.status < 500) return { ok: true };
    return { ok: false, error };
  }
}

function assertClean(result: ReturnType<typeof refusedCleanly>, what: string): unknown {
  if (!result.ok) throw new Error(`${what} threw instead of refusing with a 4xx: ${String(result.error)}`);
  return result.value;
}

const TRANSLATORS: [
  string,
  (r: MessagesRequest) => Record<string, unknown>,
  (b: unknown) => string | undefined,
][] = [
  ["openai chat", (r) => toChatRequest(r, "gpt-x", OPENAI_QUIRKS, r.stream === true), (b) => {
    const parsed = chatRequestSchema.safeParse(b);
    return parsed.success ? undefined : parsed.error.message;
  }],
  ["gemini", (r) => toGeminiRequest(r), (b) => {
    const parsed = geminiRequestSchema.safeParse(b);
    return parsed.success ? undefined : parsed.error.message;
  }],
  ["bedrock converse", (r) => toConverseRequest(r), (b) => {
    const parsed = converseRequestSchema.safeParse(b);
    return parsed.success ? undefined : parsed.error.message;
  }],
  ["openai responses", (r) => toResponsesRequest("openai", r, "gpt-5", r.stream === true), (b) => {
    const error = validateResponsesRequest(b as Record<string, unknown>);
    return error ? JSON.stringify(error.error) : undefined;
  }],
];

const REPO = new URL("../compiler/testdata/repo/", import.meta.url).pathname;

/** Every fuzz target by name; each call starts what its property needs. */
export const FUZZ_TARGETS: Record<string, () => Promise<FuzzTarget>> = {
  /** Any mutant of a valid request: validated or refused with a 4xx, never another error. */
  messages_validator: () =>
    Promise.resolve({
      property: fc.asyncProperty(mutatedRequest, (body) => {
        assertClean(refusedCleanly(() => validateMessagesRequest(body)), "validateMessagesRequest");
        return Promise.resolve();
      }),
      close: () => Promise.resolve(),
    }),

  /** Every translator turns a valid request into a body the upstream's schema accepts (or a 4xx refusal). */
  translators: () =>
    Promise.resolve({
      property: fc.asyncProperty(messagesRequest, (body) => {
        const request = assertClean(refusedCleanly(() => validateMessagesRequest(body)), "validate") as
          | MessagesRequest
          | undefined;
        if (!request) return Promise.resolve();
        for (const [name, translate, schemaProblem] of TRANSLATORS) {
          const translated = assertClean(refusedCleanly(() => translate(structuredClone(request))), name);
          if (translated === undefined) continue;
          const problem = schemaProblem(translated);
          if (problem) {
            throw new Error(`${name}: the translated request breaks the upstream's schema: ${problem}`);
          }
        }
        return Promise.resolve();
      }),
      close: () => Promise.resolve(),
    }),

  /** Mutated requests through the real gateway app over loopback HTTP: never a 5xx. */
  messages_http: async () => {
    const h = await startHarness();
    return {
      property: fc.asyncProperty(mutatedRequest, async (body) => {
        if (body.model === "fuzz/m") body.model = "openai/fx-text";
        const response = await fetch(`${h.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": h.key },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status >= 500) {
          throw new Error(`gateway answered ${response.status}: ${text.slice(0, 300)}`);
        }
      }),
      close: () => h.close(),
    };
  },

  /** Encoded events split at any byte (inside UTF-8 characters too) decode to the same events. */
  sse_chunking: () =>
    Promise.resolve({
      property: fc.asyncProperty(
        fc.array(sseEvent, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, cuts) => {
          const bytes = new TextEncoder().encode(events.map(encodeSseEvent).join(""));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const decoded: SseEvent[] = [];
          const decoder = createSseDecoder((e) => decoded.push(e));
          let from = 0;
          for (const point of [...points, bytes.length]) {
            decoder.feed(bytes.subarray(from, point));
            from = point;
          }
          decoder.end();
          const expected = JSON.stringify(events);
          if (JSON.stringify(decoded) !== expected) {
            throw new Error(`decoded ${JSON.stringify(decoded)}, expected ${expected}`);
          }
          return Promise.resolve();
        },
      ),
      close: () => Promise.resolve(),
    }),

  /** Any parameters on the authorize, token, introspection and revocation endpoints: never a 5xx. */
  oauth_params: async () => {
    const svc = await startAuthService();
    const client = await svc.register({ redirectUris: ["http://127.0.0.1:9/cb"] });
    const basic = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
    return {
      property: fc.asyncProperty(
        oauthParams,
        fc.constantFrom("authorize", "token", "introspect", "revoke"),
        fc.boolean(),
        async (params, endpoint, authenticated) => {
          const search = new URLSearchParams(params);
          const request = endpoint === "authorize"
            ? new Request(`${svc.issuer}/oauth2/authorize?${search}`)
            : new Request(`${svc.issuer}/oauth2/${endpoint}`, {
              method: "POST",
              headers: {
                "content-type": "application/x-www-form-urlencoded",
                ...(authenticated ? { authorization: basic } : {}),
              },
              body: search,
            });
          const response = await svc.handle(request);
          const text = await response.text();
          if (response.status >= 500) {
            throw new Error(`${endpoint} answered ${response.status}: ${text.slice(0, 300)}`);
          }
        },
      ),
      close: async () => await svc[Symbol.asyncDispose](),
    };
  },

  /** Random frontmatter and `${{ }}` expressions: a lock or located diagnostics, never a crash. */
  compiler_frontmatter: () =>
    Promise.resolve({
      property: fc.asyncProperty(
        frontmatter,
        fc.array(expression, { maxLength: 3 }),
        async (yaml, expressions) => {
          const path = ".github/workflows/fuzz.md";
          const body = expressions.map((e) => `Look at \${{ ${e} }} here.`).join("\n");
          const content = `---\non: issues\n${yaml}\n---\n# Fuzz\n${body}\n`;
          const result = await compile({
            repoRoot: REPO,
            workflows: [path],
            readFile: (p) =>
              p === path ? Promise.resolve(content) : Deno.readTextFile(`${REPO}${p}`).catch(() => undefined),
          });
          for (const workflow of result.workflows) {
            const diagnostics = [...workflow.diagnostics, ...result.diagnostics];
            for (const d of diagnostics) {
              if (d.code === "workflow-failed") throw new Error(`compiler crashed: ${d.message}`);
              if (!(d.line >= 1 && d.column >= 1)) {
                throw new Error(`unlocated diagnostic ${JSON.stringify(d)}`);
              }
              if (/\n\s+at |\.ts:\d+:\d+/.test(d.message)) throw new Error(`stack trace in ${d.message}`);
            }
            if (workflow.lockContent === undefined && !diagnostics.some((d) => d.severity === "error")) {
              throw new Error("no lock and no error");
            }
          }
        },
      ),
      close: () => Promise.resolve(),
    }),
};
