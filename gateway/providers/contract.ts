/**
 * The small contract every provider module implements, and the per-request call it receives. A provider
 * turns a validated Anthropic request into its own wire format, performs the upstream call, and answers in
 * Anthropic's format; it never frames SSE itself (see messages/stream_pipe.ts).
 */
import type { Message, MessagesRequest } from "../messages/types.ts";
import type { StreamOutcome } from "../messages/stream_pipe.ts";
import type { UpstreamLimits } from "../upstream/guard.ts";
import type { UpstreamFetch, UpstreamResponse } from "../upstream/response.ts";

/** The provider families the registry knows. */
export type ProviderKind =
  | "anthropic"
  | "openai"
  | "gemini"
  | "openai-compatible"
  | "openai-responses"
  | "bedrock"
  | "vertex";

/** Tracing identifiers of one request. */
export interface TraceIds {
  /** `Gw-Trace-Id`, generated when absent. */
  traceId: string;
  /** `Gw-Thread-Id`, when given. */
  threadId?: string;
}

/** One request, routed to one provider. */
export interface ProviderCall {
  /** The validated client body. */
  request: MessagesRequest;
  /**
   * The client's body text exactly as received (`request` is its parse). A pass-through provider forwards
   * these bytes unchanged when nothing in them must change, instead of serializing `request` again.
   */
  rawBody?: string;
  /** The model name as the provider knows it. */
  upstreamModel: string;
  /** The model name the client asked for; echoed in responses. */
  requestedModel: string;
  /** Aborts the upstream request (client gone). */
  abort: AbortController;
  /** Tracing identifiers. */
  trace: TraceIds;
  /** The client's request headers (pass-through providers forward `anthropic-version`/`-beta`). */
  clientHeaders: Headers;
  /** Best-effort input token count for `message_start`. */
  inputTokensEstimate: number;
  /** Told once how a stream ended (the access log's outcome). */
  onStreamEnd?: (outcome: StreamOutcome) => void;
  /** Told of each successful upstream response before its body is read (its rate-limit headers). */
  onUpstreamResponse?: (response: UpstreamResponse) => void;
}

/** What the world gives a provider. */
export interface ProviderDeps {
  /** The fetch used for upstream calls. */
  fetch: UpstreamFetch;
  /** Milliseconds of upstream silence before a `ping`. */
  pingIntervalMs: number;
  /** Removes the gateway's secrets from upstream text (error excerpts, stream error messages). */
  redact: (text: string) => string;
  /** Deadlines and size caps of every upstream call. */
  limits: UpstreamLimits;
}

/** Static settings of one configured provider. */
export interface ProviderSettings {
  /** Routing name (`openai`, `groq`, ...): the prefix of `provider/model`. */
  name: string;
  /** Which module serves it. */
  kind: ProviderKind;
  /** Base URL of the upstream API, without trailing slash. */
  baseUrl: string;
  /** Upstream credential; absent for keyless local servers. */
  apiKey?: string;
  /** The name (never the value) of the credential: its environment key; part of a deployment's circuit. */
  credentialName?: string;
  /**
   * The header carrying `apiKey` (OpenAI-compatible providers): `authorization` sends `Bearer <key>`, any
   * other name the bare key. Default `authorization`.
   */
  authHeader?: string;
  /** Per-provider differences from the OpenAI wire format. */
  quirks: OpenAiQuirks;
  /** Further credentials the redactor must know (a cloud provider's secret key, private key, token). */
  secrets?: readonly string[];
  /** Amazon Bedrock settings (kind `bedrock`). */
  bedrock?: BedrockSettings;
  /** Google Vertex AI settings (kind `vertex`). */
  vertex?: VertexSettings;
}

/** AWS credentials, as the standard environment variables give them. */
export interface AwsCredentials {
  /** `AWS_ACCESS_KEY_ID`. */
  accessKeyId: string;
  /** `AWS_SECRET_ACCESS_KEY`. */
  secretAccessKey: string;
  /** `AWS_SESSION_TOKEN`, for temporary credentials. */
  sessionToken?: string;
}

/** Settings of a `bedrock` provider. */
export interface BedrockSettings {
  /** The AWS region signed for and (without `base_url`) addressed. */
  region: string;
  /** The signing credentials. */
  credentials: AwsCredentials;
}

/** A Google service account's key, from its JSON key file. */
export interface ServiceAccountKey {
  /** `client_email`: the JWT's issuer. */
  clientEmail: string;
  /** `private_key`: PKCS#8 PEM, RS256. */
  privateKey: string;
  /** `private_key_id`: the JWT's `kid`, when given. */
  privateKeyId?: string;
  /** `token_uri`: where the JWT bearer grant is POSTed. */
  tokenUri: string;
}

/** How a `vertex` provider authenticates. */
export type VertexAuth =
  | { type: "service_account"; key: ServiceAccountKey }
  | { type: "token"; token: string };

/** Settings of a `vertex` provider. */
export interface VertexSettings {
  /** The Google Cloud project. */
  project: string;
  /** The location (`us-east5`, `europe-west1`, `global`). */
  region: string;
  /** The credential. */
  auth: VertexAuth;
}

/** Differences of OpenAI-compatible servers from OpenAI itself. */
export interface OpenAiQuirks {
  /** Send `stream_options.include_usage` (some servers reject it). */
  streamOptions: boolean;
  /** Send `parallel_tool_calls` when the client disables parallel use. */
  parallelToolCalls: boolean;
  /** `max_completion_tokens` (OpenAI) or `max_tokens` (most compatible servers). */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Tool call ids must be `[a-zA-Z0-9]{9}` (Mistral). */
  nineCharToolIds: boolean;
  /** Tool choice `any` is spelled `any` (Mistral) instead of `required`. */
  toolChoiceAny: "required" | "any";
  /** Honours `response_format: json_schema` (structured outputs); if not, such requests are refused. */
  structuredOutputs: boolean;
  /** Honours a forced `tool_choice` (`required`/`any` or a named function); if not, such requests are refused. */
  forcedToolChoice: boolean;
  /** The message/delta field reasoning text arrives in (`any`: whichever is present). */
  reasoningField: "reasoning_content" | "reasoning" | "any";
  /**
   * How `thinking` is asked for: `reasoning_effort` (OpenAI's low/medium/high), `reasoning_max_tokens`
   * (OpenRouter's `reasoning: {max_tokens}` from `budget_tokens`), or `none` (the model decides).
   */
  reasoningRequest: "reasoning_effort" | "reasoning_max_tokens" | "none";
  /** Optional parameters the server rejects: `drop` them silently, or `refuse` the request with a 400. */
  unsupportedParams: Readonly<Partial<Record<OptionalChatParam, "drop" | "refuse">>>;
}

/** Optional Chat Completions parameters a server may not accept. */
export type OptionalChatParam = "temperature" | "top_p" | "stop" | "user";

/** One provider module's implementation. */
export interface Provider {
  /** Its routing name. */
  readonly name: string;
  /** Its family. */
  readonly kind: ProviderKind;
  /**
   * Non-streaming call. Throws GatewayError for upstream failures. A pass-through provider may answer with
   * the upstream's own JSON text ({@link RawJson}) when it is already the exact answer.
   */
  createMessage(call: ProviderCall): Promise<Message | RawJson>;
  /** Streaming call: resolves once the upstream accepted (errors before that are thrown as GatewayError). */
  streamMessage(call: ProviderCall): Promise<ReadableStream<Uint8Array>>;
  /** Input tokens of a request, and how they were counted. */
  countTokens(call: ProviderCall): Promise<TokenCount>;
}

/**
 * A `count_tokens` answer: `upstream` — the provider's own counting endpoint; `tokenizer` — OpenAI's
 * tokenizer with OpenAI's rules; `estimate` — the local estimate (no counter for this model, or the upstream
 * answered without a count). The route says which in its `gw-token-count` header.
 */
export interface TokenCount {
  input_tokens: number;
  source: "upstream" | "tokenizer" | "estimate";
}

/** The upstream's count when it gave a number, otherwise the local estimate (and says so). */
export function upstreamCount(value: unknown, call: ProviderCall): TokenCount {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? { input_tokens: value, source: "upstream" }
    : { input_tokens: call.inputTokensEstimate, source: "estimate" };
}

/** A Message already serialized: JSON text the gateway returns to the client byte for byte. */
export class RawJson {
  /** The JSON text of a Message. */
  readonly text: string;

  /** Wraps JSON text known to be a valid Message. */
  constructor(text: string) {
    this.text = text;
  }
}
