/**
 * Starts the gateway (real app, real libSQL key store in a temp directory) in front of the four mock
 * upstreams on loopback, with a freshly issued key.
 */
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { type GatewayConfig, readGatewayConfig } from "../../gateway/config/mod.ts";
import { startGatewayServer } from "../../gateway/serve.ts";
import { ApiKeyStore, type KeysDatabase } from "../../gateway/keys/store.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { createIdentities } from "../../gateway/identity/mod.ts";
import type { LimitCounters } from "../../gateway/limits/counters.ts";
import { type UsageDatabase, UsageLedger } from "../../gateway/usage/ledger.ts";
import type { Kysely } from "kysely";
import { ANTHROPIC_FIXTURES, GEMINI_FIXTURES, OPENAI_FIXTURES } from "./fixtures.ts";
import { startAnthropicMock } from "./upstreams/anthropic_mock.ts";
import { startGeminiMock } from "./upstreams/gemini_mock.ts";
import type { MockUpstream } from "./upstreams/mock_server.ts";
import { startOpenAiMock } from "./upstreams/openai_mock.ts";

/** A running gateway with its upstreams. */
export interface Harness {
  /** Gateway base URL (SDK baseURL is `${url}/compat`). */
  url: string;
  /** A valid gateway key. */
  key: string;
  /** The key store (to create and revoke keys). */
  store: ApiKeyStore;
  /** The gateway's configuration (to start another instance on the same database). */
  config: GatewayConfig;
  /** The environment the configuration was read from (to start a gateway process like it). */
  env: Record<string, string>;
  /** The usage ledger (flush it before reading rows). */
  ledger: UsageLedger;
  /** The gateway database. */
  db: Kysely<KeysDatabase & UsageDatabase>;
  /** Mock upstreams. */
  openai: MockUpstream;
  /** The OpenAI-compatible provider `mistral` (with Mistral's tool-id quirk). */
  compat: MockUpstream;
  /** Mock Gemini. */
  gemini: MockUpstream;
  /** Mock Anthropic. */
  anthropic: MockUpstream;
  /** Stops everything. */
  close(): Promise<void>;
}

const CONFIG = (compatUrl: string) => `
providers:
  mistral:
    type: openai-compatible
    base_url: ${compatUrl}/v1
    api_key_env: MISTRAL_API_KEY
    quirks: { nine_char_tool_ids: true, tool_choice_any: any }
    models: [fx-text, fx-parallel]
  offline:
    type: openai-compatible
    base_url: http://127.0.0.1:9/v1
    api_key_env: OFFLINE_API_KEY_NOT_SET
aliases:
  fast: openai/fx-text
`;

/**
 * Starts the harness; `env` overrides gateway settings, `extraConfig` is appended to the config file,
 * `counters` replaces the limit counters the configuration would choose.
 */
export async function startHarness(
  env: Record<string, string> = {},
  extraConfig = "",
  counters?: LimitCounters,
): Promise<Harness> {
  const openai = await startOpenAiMock(OPENAI_FIXTURES, "sk-openai-test");
  const compat = await startOpenAiMock(OPENAI_FIXTURES, "sk-mistral-test");
  const gemini = await startGeminiMock(GEMINI_FIXTURES, "gemini-test-key");
  const anthropic = await startAnthropicMock(ANTHROPIC_FIXTURES, "sk-ant-test");
  const dir = await Deno.makeTempDir({ prefix: "gateway-test-" });
  await Deno.writeTextFile(`${dir}/gateway.yaml`, CONFIG(compat.url) + extraConfig);
  const rawEnv: Record<string, string> = {
    OPENAI_API_KEY: "sk-openai-test",
    OPENAI_BASE_URL: `${openai.url}/v1`,
    GEMINI_API_KEY: "gemini-test-key",
    GEMINI_BASE_URL: gemini.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: anthropic.url,
    MISTRAL_API_KEY: "sk-mistral-test",
    GATEWAY_CONFIG: `${dir}/gateway.yaml`,
    GATEWAY_PING_INTERVAL_MS: "40",
    GATEWAY_KEY_CACHE_TTL_MS: "150",
    GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
    ...env,
  };
  const config = readGatewayConfig(rawEnv);
  const { client, db } = await openDatabase<KeysDatabase & UsageDatabase>({
    url: config.GATEWAY_DATABASE_URL,
  });
  await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
  const store = new ApiKeyStore(db);
  const { key } = await store.create("test");
  const apiKeys = new KeyVerifier(() => store.activeHashes(), { ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS });
  const logger = createLogger({ level: "silent" });
  // OP tokens and GitHub OIDC credentials when the env configures them (gateway/identity/).
  const identities = createIdentities(config, {
    keys: apiKeys,
    db: () => Promise.resolve(db as never),
    logger,
    policiesTtlMs: config.GATEWAY_KEY_CACHE_TTL_MS,
  });
  const keys = identities.check;
  const ledger = new UsageLedger({ db: () => Promise.resolve(db), logger, retentionDays: 90, flushMs: 50 });
  const app = createGatewayApp(config, {
    logger,
    keys,
    counters,
    usage: { ledger, db: () => Promise.resolve(db) },
    githubOidc: identities.exchange,
  });
  // As self-hosted: behind the connection guard unless GATEWAY_CONNECTION_GUARD=off.
  const server = await startGatewayServer(app.fetch, config, { port: 0 });
  return {
    url: server.url,
    key,
    store,
    config,
    env: rawEnv,
    ledger,
    db,
    openai,
    compat,
    gemini,
    anthropic,
    async close() {
      await server.shutdown();
      await app.close();
      await Promise.all([openai.close(), compat.close(), gemini.close(), anthropic.close()]);
      client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** POSTs a messages body straight to the gateway and returns status, headers and raw text. */
export async function rawPost(
  h: Harness,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${h.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": h.key, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
