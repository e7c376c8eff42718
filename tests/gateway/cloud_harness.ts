/**
 * The gateway in front of the cloud stand-ins: a Bedrock Runtime that verifies SigV4, a Google token
 * endpoint that verifies the service account's JWT grant, and Vertex AI; configured as users configure
 * them (AWS_* variables, a service-account key file, `GATEWAY_CONFIG` providers with `base_url`).
 */
import { generateKeyPairSync } from "node:crypto";
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { startServer } from "@switchyard/lib/serve.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { readGatewayConfig } from "../../gateway/config/mod.ts";
import { ApiKeyStore, type KeysDatabase } from "../../gateway/keys/store.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { startBedrockMock } from "./upstreams/bedrock_mock.ts";
import { startTokenEndpoint, startVertexMock, type TokenEndpoint } from "./upstreams/google_mock.ts";
import type { MockUpstream } from "./upstreams/mock_server.ts";

/** The AWS credentials the stand-in accepts. */
export const AWS = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  sessionToken: "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN",
};
/** The static Vertex token of the `vertex-token` provider. */
export const STATIC_TOKEN = "ya29.static-token-for-tests-0123456789";
/** The Vertex project and region. */
export const PROJECT = "switchyard-test";
/** The Vertex region. */
export const REGION = "us-east5";
/** The service account's email. */
export const CLIENT_EMAIL = "gateway@switchyard-test.iam.gserviceaccount.com";

/** A running gateway with its cloud upstreams. */
export interface CloudHarness {
  /** Gateway base URL. */
  url: string;
  /** A gateway key. */
  key: string;
  /** The Bedrock stand-in. */
  bedrock: MockUpstream;
  /** The Vertex stand-in. */
  vertex: MockUpstream;
  /** The token endpoint. */
  tokens: TokenEndpoint;
  /** The service account's PEM private key (to check it never leaks). */
  privateKey: string;
  /** Stops everything. */
  close(): Promise<void>;
}

/** Starts the cloud harness; `env` overrides gateway settings (`GATEWAY_UPSTREAM_CLIENT`, ...). */
export async function startCloudHarness(env: Record<string, string> = {}): Promise<CloudHarness> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const tokens = await startTokenEndpoint(CLIENT_EMAIL, publicKey);
  const bedrock = await startBedrockMock({ ...AWS, region: "us-east-1", service: "bedrock" });
  const vertex = await startVertexMock(PROJECT, REGION, () => tokens.tokens, STATIC_TOKEN);
  const dir = await Deno.makeTempDir({ prefix: "gateway-cloud-" });
  await Deno.writeTextFile(
    `${dir}/sa.json`,
    JSON.stringify({
      type: "service_account",
      project_id: PROJECT,
      private_key_id: "kid-1",
      private_key: pem,
      client_email: CLIENT_EMAIL,
      token_uri: tokens.url,
    }),
  );
  await Deno.writeTextFile(
    `${dir}/gateway.yaml`,
    `
providers:
  bedrock: { type: bedrock, region: us-east-1, base_url: "${bedrock.url}" }
  bedrock-eu: { type: bedrock, region: eu-west-1, base_url: "${bedrock.url}" }
  vertex: { type: vertex, region: ${REGION}, credentials_file: "${dir}/sa.json", base_url: "${vertex.url}" }
  vertex-token:
    type: vertex
    region: ${REGION}
    project: ${PROJECT}
    access_token_env: VERTEX_ACCESS_TOKEN
    base_url: "${vertex.url}"
aliases:
  claude-on-bedrock: bedrock/arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-fx-v1:0
`,
  );
  const config = readGatewayConfig({
    AWS_ACCESS_KEY_ID: AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    AWS_SESSION_TOKEN: AWS.sessionToken,
    VERTEX_ACCESS_TOKEN: STATIC_TOKEN,
    GATEWAY_CONFIG: `${dir}/gateway.yaml`,
    GATEWAY_PING_INTERVAL_MS: "1000",
    GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
    ...env,
  });
  const { client, db } = await openDatabase<KeysDatabase>({ url: config.GATEWAY_DATABASE_URL });
  await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
  const store = new ApiKeyStore(db);
  const { key } = await store.create("cloud");
  const app = createGatewayApp(config, {
    logger: createLogger({ level: "silent" }),
    keys: new KeyVerifier(() => store.activeHashes(), { ttlMs: 1000 }),
  });
  const server = await startServer(app.fetch, { port: 0 });
  return {
    url: server.url,
    key,
    bedrock,
    vertex,
    tokens,
    privateKey: pem,
    async close() {
      await server.shutdown();
      await app.close();
      await Promise.all([bedrock.close(), vertex.close(), tokens.close()]);
      client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
