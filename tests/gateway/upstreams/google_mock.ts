/**
 * Google stand-ins for the Vertex lane. The OAuth token endpoint verifies the JWT bearer grant as Google
 * does: `grant_type`, an RS256 signature checked against the service account's public key (node:crypto,
 * independent of the client's jose), issuer, audience (the token_uri), scope and lifetime; it issues
 * random tokens. The Vertex endpoint accepts only those tokens (or a configured static one) and checks the
 * body shape of each method: rawPredict/streamRawPredict (Anthropic body, vertex-2023-10-16, no model, a
 * `stream` matching the method), generateContent/streamGenerateContent (Gemini body) and count-tokens.
 */
import { Buffer } from "node:buffer";
import { createVerify, type KeyObject } from "node:crypto";
import { startServer } from "@switchyard/lib/serve.ts";
import { anthropicEvents, anthropicMessage, geminiChunks } from "./cloud_answers.ts";
import { anthropicView, decideAgentAnswer, geminiView } from "./agent_script.ts";
import { mergeGemini } from "./gemini_mock.ts";
import { json, type MockUpstream, type RecordedRequest, sse, startMock } from "./mock_server.ts";
import { dataFrame, namedFrame, sseBody } from "./sse_body.ts";

/** The running token endpoint. */
export interface TokenEndpoint {
  /** The token_uri to put in the key file. */
  url: string;
  /** Grants issued (each a signed, verified assertion). */
  grants: number;
  /** Tokens issued and still accepted by the Vertex stand-in. */
  tokens: Set<string>;
  /** Answer every grant with this OAuth error instead. */
  refuseWith?: string;
  /** Stops it. */
  close(): Promise<void>;
}

function decodePart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
}

/** Starts the token endpoint for the service account `clientEmail` whose public key is `publicKey`. */
export async function startTokenEndpoint(clientEmail: string, publicKey: KeyObject): Promise<TokenEndpoint> {
  const endpoint: TokenEndpoint = { url: "", grants: 0, tokens: new Set(), close: () => Promise.resolve() };
  const refuse = (error: string, description: string) =>
    json({ error, error_description: description }, error === "invalid_request" ? 400 : 400);
  const server = await startServer(async (request) => {
    if (
      request.method !== "POST" || request.headers.get("content-type") !== "application/x-www-form-urlencoded"
    ) {
      return refuse("invalid_request", "expected a form POST");
    }
    const form = new URLSearchParams(await request.text());
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return refuse("unsupported_grant_type", "Invalid grant_type");
    }
    const parts = (form.get("assertion") ?? "").split(".");
    if (parts.length !== 3) return refuse("invalid_grant", "Invalid JWT");
    const header = decodePart(parts[0]);
    const claims = decodePart(parts[1]);
    const signed = createVerify("RSA-SHA256").update(`${parts[0]}.${parts[1]}`)
      .verify(publicKey, Buffer.from(parts[2], "base64url"));
    if (header.alg !== "RS256" || !signed) return refuse("invalid_grant", "Invalid JWT Signature.");
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (
      claims.iss !== clientEmail || claims.aud !== endpoint.url ||
      !String(claims.scope).split(" ").includes("https://www.googleapis.com/auth/cloud-platform") ||
      Math.abs(iat - now) > 60 || exp - iat > 3600 || exp <= now
    ) return refuse("invalid_grant", "Invalid JWT: claims");
    if (endpoint.refuseWith) return refuse(endpoint.refuseWith, "Account disabled");
    endpoint.grants++;
    const token = `ya29.mock-${crypto.randomUUID()}`;
    endpoint.tokens.add(token);
    return json({ access_token: token, expires_in: 3599, token_type: "Bearer" });
  }, { port: 0 });
  endpoint.url = `${server.url}/token`;
  endpoint.close = () => server.shutdown();
  return endpoint;
}

const PATH =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/:]+):(\w+)(\?alt=sse)?$/;

function googleError(status: number, message: string, code: string): Response {
  return json({ error: { code: status, message, status: code } }, status);
}

/** Starts the Vertex stand-in for `project` and `region`, accepting the endpoint's tokens and `staticToken`. */
export function startVertexMock(
  project: string,
  region: string,
  tokens: () => Set<string>,
  staticToken?: string,
): Promise<MockUpstream> {
  return startMock((request: RecordedRequest, mock) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers["authorization"] ?? "")?.[1];
    if (!bearer || (!tokens().has(bearer) && bearer !== staticToken)) {
      return googleError(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED");
    }
    const match = PATH.exec(request.path);
    if (!match || match[1] !== project || match[2] !== region) {
      return googleError(404, "not found", "NOT_FOUND");
    }
    const [, , , publisher, model, method, alt] = match;
    const body = request.body;
    if (publisher === "anthropic") {
      if (model === "count-tokens" && method === "rawPredict") {
        if (typeof body.model !== "string") return googleError(400, "model: required", "INVALID_ARGUMENT");
        return json({ input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4) });
      }
      if (method !== "rawPredict" && method !== "streamRawPredict") {
        return googleError(404, "no such method", "NOT_FOUND");
      }
      if (body.anthropic_version !== "vertex-2023-10-16") {
        return googleError(400, "anthropic_version: vertex-2023-10-16 is required", "INVALID_ARGUMENT");
      }
      if ("model" in body) {
        return googleError(400, "model: Extra inputs are not permitted", "INVALID_ARGUMENT");
      }
      if (body.stream !== (method === "streamRawPredict")) {
        return googleError(
          400,
          `stream must be ${method === "streamRawPredict"} for ${method}`,
          "INVALID_ARGUMENT",
        );
      }
      const answer = decideAgentAnswer(anthropicView(body));
      if (method === "rawPredict") return json(anthropicMessage(answer, model));
      return sse(
        sseBody(
          anthropicEvents(answer, model).map((e) => namedFrame(String(e.type), e)),
          {},
          () => mock.cancelled++,
        ),
      );
    }
    if (method === "countTokens") {
      if (!Array.isArray(body.contents)) return googleError(400, "contents: required", "INVALID_ARGUMENT");
      return json({ totalTokens: Math.ceil(JSON.stringify(body.contents).length / 4) });
    }
    if (!Array.isArray(body.contents) || "model" in body) {
      return googleError(
        400,
        "Invalid JSON payload: contents required, model not allowed",
        "INVALID_ARGUMENT",
      );
    }
    const answer = decideAgentAnswer(geminiView(body));
    const chunks = geminiChunks(answer);
    if (method === "generateContent") return json(mergeGemini({ chunks }));
    if (method !== "streamGenerateContent" || !alt) {
      return googleError(400, "want streamGenerateContent?alt=sse", "INVALID_ARGUMENT");
    }
    return sse(sseBody(chunks.map((c) => dataFrame(c)), {}, () => mock.cancelled++));
  });
}
