/**
 * One gateway in front of every lane's stand-in, each answering as the scripted agent (agent_script.ts):
 * Anthropic, OpenAI Chat Completions, the Responses API, Gemini, one preset host (groq) under its own
 * rules, Bedrock (SigV4 verified; InvokeModel and Converse) and Vertex (JWT grant verified; Claude and
 * Gemini). Each lane also has a small-model alias, where Claude Code's haiku-class side requests go.
 */
import { generateKeyPairSync } from "node:crypto";
import { type FaultyGateway, startFaultyGateway } from "./faulty.ts";
import { AWS, CLIENT_EMAIL, PROJECT, REGION } from "./cloud_harness.ts";
import { anthropicEvents } from "./upstreams/cloud_answers.ts";
import {
  type AgentView,
  anthropicView,
  chatFixture,
  chatView,
  converseView,
  decideAgentAnswer,
  geminiFixture,
  geminiView,
  responsesFixture,
  responsesView,
} from "./upstreams/agent_script.ts";
import type { AnthropicFixture } from "./upstreams/anthropic_mock.ts";
import { startAnthropicMock } from "./upstreams/anthropic_mock.ts";
import { startBedrockMock } from "./upstreams/bedrock_mock.ts";
import { HOST_RULES, startCompatHostsMock } from "./upstreams/compat_hosts_mock.ts";
import { startGeminiMock } from "./upstreams/gemini_mock.ts";
import { startTokenEndpoint, startVertexMock, type TokenEndpoint } from "./upstreams/google_mock.ts";
import type { MockUpstream, RecordedRequest } from "./upstreams/mock_server.ts";
import { startOpenAiMock } from "./upstreams/openai_mock.ts";
import { startResponsesMock } from "./upstreams/responses_mock.ts";

/** One lane: the model Claude Code is given, where it lands, and how that wire format carries a turn. */
export interface AgentLane {
  /** The step name. */
  name: string;
  /** `--model`. */
  model: string;
  /** The alias Claude Code's small-model requests use (routed to the same stand-in). */
  smallModel: string;
  /** The stand-in serving the lane. */
  upstream: MockUpstream;
  /** Reads a generation request in the lane's wire format (undefined for other calls: count-tokens). */
  view(request: RecordedRequest): AgentView | undefined;
}

/** The running gateway and its lanes. */
export interface AgentHarness {
  /** The gateway (with its captured log lines). */
  gateway: FaultyGateway;
  /** Every lane, in the order they run. */
  lanes: AgentLane[];
  /** The Anthropic stand-in (the pass-through lane records Claude Code's own body). */
  anthropic: MockUpstream;
  /** Stops everything. */
  close(): Promise<void>;
}

const OPENAI_KEY = "sk-openai-agent";
const RESPONSES_KEY = "sk-rx-agent";
const GEMINI_KEY = "gemini-agent-key";
const ANTHROPIC_KEY = "sk-ant-agent";
const AGENT = "cc-agent";

const anthropicAgent = (request: RecordedRequest): AnthropicFixture => ({
  events: anthropicEvents(decideAgentAnswer(anthropicView(request.body)), String(request.body.model))
    .map((event) => [String(event.type), event]),
});

const generation =
  (path: RegExp, view: (body: Record<string, unknown>) => AgentView) => (r: RecordedRequest) =>
    path.test(r.path) ? view(r.body) : undefined;

/** Starts the stand-ins and one gateway in front of them. */
export async function startAgentHarness(): Promise<AgentHarness> {
  const openai = await startOpenAiMock(
    { [AGENT]: (r) => chatFixture(decideAgentAnswer(chatView(r.body))) },
    OPENAI_KEY,
  );
  const responses = await startResponsesMock(
    { [AGENT]: (r) => responsesFixture(decideAgentAnswer(responsesView(r.body))) },
    RESPONSES_KEY,
  );
  const gemini = await startGeminiMock(
    { [AGENT]: (r) => geminiFixture(decideAgentAnswer(geminiView(r.body))) },
    GEMINI_KEY,
  );
  const anthropic = await startAnthropicMock({ "claude-cc-agent": anthropicAgent }, ANTHROPIC_KEY);
  const hosts = await startCompatHostsMock(true);
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const tokens: TokenEndpoint = await startTokenEndpoint(CLIENT_EMAIL, publicKey);
  const bedrock = await startBedrockMock({ ...AWS, region: "us-east-1", service: "bedrock" });
  const vertex = await startVertexMock(PROJECT, REGION, () => tokens.tokens);
  const dir = await Deno.makeTempDir({ prefix: "gateway-agent-" });
  const keyFile = `${dir}/sa.json`;
  await Deno.writeTextFile(
    keyFile,
    JSON.stringify({
      type: "service_account",
      project_id: PROJECT,
      private_key_id: "kid-1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: CLIENT_EMAIL,
      token_uri: tokens.url,
    }),
  );
  const lanes: AgentLane[] = [
    {
      name: "anthropic pass-through",
      model: "claude-cc-agent",
      upstream: anthropic,
      view: generation(/^\/v1\/messages(\?|$)/, anthropicView),
    },
    {
      name: "openai",
      model: `openai/${AGENT}`,
      upstream: openai,
      view: generation(/chat\/completions$/, chatView),
    },
    {
      name: "openai-responses",
      model: `rx/${AGENT}`,
      upstream: responses,
      view: generation(/\/responses$/, responsesView),
    },
    {
      name: "gemini",
      model: `gemini/${AGENT}`,
      upstream: gemini,
      view: generation(/GenerateContent/i, geminiView),
    },
    {
      name: "preset groq",
      model: `groq/${AGENT}`,
      upstream: hosts,
      view: generation(/^\/groq\/v1\/chat\/completions$/, chatView),
    },
    {
      name: "bedrock InvokeModel",
      model: "bedrock/anthropic.claude-cc-v1:0",
      upstream: bedrock,
      view: generation(/\/invoke(-with-response-stream)?$/, anthropicView),
    },
    {
      name: "bedrock Converse",
      model: "bedrock/amazon.nova-cc-v1:0",
      upstream: bedrock,
      view: generation(/\/converse(-stream)?$/, converseView),
    },
    {
      name: "vertex claude",
      model: "vertex/claude-cc@20250101",
      upstream: vertex,
      view: generation(/:(stream)?rawPredict$/i, anthropicView),
    },
    {
      name: "vertex gemini",
      model: "vertex/gemini-cc",
      upstream: vertex,
      view: generation(/:(streamGenerateContent|generateContent)/, geminiView),
    },
  ].map((lane) => ({ ...lane, smallModel: `cc-small-${lane.name.replace(/[^a-z]+/g, "-")}` }));
  const yaml = `providers:
  rx: { type: openai-responses, base_url: "${responses.url}/v1", api_key_env: RX_KEY }
  groq: { base_url: "${hosts.url}/groq/v1" }
  bedrock: { type: bedrock, region: us-east-1, base_url: "${bedrock.url}" }
  vertex: { type: vertex, region: ${REGION}, credentials_file: "${keyFile}", base_url: "${vertex.url}" }
aliases:
${
    lanes.map((lane) =>
      `  ${lane.smallModel}: "${lane.model.includes("/") ? "" : "anthropic/"}${lane.model}"`
    )
      .join("\n")
  }
`;
  const gateway = await startFaultyGateway({
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    GEMINI_API_KEY: GEMINI_KEY,
    GEMINI_BASE_URL: gemini.url,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    RX_KEY: RESPONSES_KEY,
    GROQ_API_KEY: HOST_RULES.groq.key!,
    AWS_ACCESS_KEY_ID: AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    AWS_SESSION_TOKEN: AWS.sessionToken,
    GATEWAY_PING_INTERVAL_MS: "1000",
  }, yaml);
  return {
    gateway,
    lanes,
    anthropic,
    async close() {
      await gateway.close();
      await Promise.all(
        [openai, responses, gemini, anthropic, hosts, bedrock, vertex, tokens].map((m) => m.close()),
      );
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
