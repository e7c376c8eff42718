/**
 * The gateway's configuration, validated once at start-up: environment keys (named as each vendor's SDK
 * names them) plus the optional GATEWAY_CONFIG file, resolved into the list of offered providers. A
 * provider without credentials is simply not offered, except a declared Bedrock or Vertex provider, which
 * stops start-up naming what it lacks (config/cloud.ts).
 */
import { z } from "zod";
import {
  ConfigError,
  type ConfigProblem,
  databaseUrlSetting,
  type Env,
  flagSetting,
  httpUrlSetting,
  logLevelSetting,
  readConfig,
} from "@switchyard/lib/config.ts";
import { type GatewayFile, parseGatewayFile } from "./file.ts";
import { bedrockTargetProblems, resolveCloudProviders } from "./cloud.ts";
import type { ProviderSettings } from "../providers/contract.ts";
import { OPENAI_QUIRKS } from "../providers/openai.ts";
import { fileProviders } from "./providers.ts";
import { parseTarget } from "../target.ts";
import { identityConfigShape, identityProblems } from "../identity/config.ts";

function positiveIntSetting(defaultValue: number) {
  return z.string().default(String(defaultValue)).transform((raw, ctx) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(value) || value < 1) {
      ctx.addIssue({ code: "custom", message: `expected a positive integer, got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    return value;
  });
}

/** Proxy settings Deno's fetch honours and the built-in upstream client does not. */
const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"];

/** Schema of the gateway's environment. */
export const gatewayConfigSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
  GATEWAY_CONFIG: z.string().optional(),
  GATEWAY_PING_INTERVAL_MS: positiveIntSetting(10_000),
  GATEWAY_KEY_CACHE_TTL_MS: positiveIntSetting(2_000),
  /** Longest a client may take to send its request body (408 after it). */
  GATEWAY_CLIENT_BODY_TIMEOUT_MS: positiveIntSetting(30_000),
  /** `on`: the self-hosted server puts the connection guard (lib/connection_guard.ts) in front of Deno.serve. */
  GATEWAY_CONNECTION_GUARD: z.enum(["on", "off"]).default("on"),
  /**
   * Under `deno serve gateway/main.ts`: `host:port` on which the connection guard accepts the public
   * connections, in front of the (loopback) port `deno serve` listens on. Unset: no guard (a warning).
   */
  GATEWAY_SERVE_GUARD: z.string().optional().transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    const match = /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):(\d{1,5})$/.exec(raw);
    const port = match ? Number(match[2]) : NaN;
    if (!match || port > 65535) {
      ctx.addIssue({ code: "custom", message: `expected host:port (for example 0.0.0.0:8000), got ${raw}` });
      return z.NEVER;
    }
    return { hostname: match[1].replace(/^\[|\]$/g, ""), port };
  }),
  /** Longest a request head may take to reach the handler once it started (or since connect); then closed. */
  GATEWAY_CLIENT_HEADER_TIMEOUT_MS: positiveIntSetting(10_000),
  /** Longest a keep-alive connection may stay without a request; then closed. */
  GATEWAY_CLIENT_IDLE_TIMEOUT_MS: positiveIntSetting(60_000),
  /** Most open client connections (each costs three sockets in the process); more get 503 and are closed. */
  GATEWAY_MAX_CONNECTIONS: positiveIntSetting(4_096),
  /** Longest wait for a new upstream connection (built-in client; `fetch` counts it in the headers wait). */
  GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: positiveIntSetting(10_000),
  /** Longest wait for an upstream's response headers (Anthropic refuses non-streamed calls over 10 min). */
  GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: positiveIntSetting(600_000),
  /** Longest upstream silence in the middle of a response body (a stream's pings do not count). */
  GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: positiveIntSetting(300_000),
  /** Largest whole (non-streamed) upstream response. */
  GATEWAY_UPSTREAM_MAX_BODY_BYTES: positiveIntSetting(32 * 1024 * 1024),
  /** Largest single line of an upstream stream. */
  GATEWAY_UPSTREAM_MAX_SSE_LINE_BYTES: positiveIntSetting(8 * 1024 * 1024),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: httpUrlSetting("https://api.anthropic.com"),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: httpUrlSetting("https://api.openai.com/v1"),
  GEMINI_API_KEY: z.string().optional(),
  GEMINI_BASE_URL: httpUrlSetting("https://generativelanguage.googleapis.com"),
  /** Redis for limits and budgets shared by several gateway instances (`redis://host:port`); unset: in-process. */
  GATEWAY_REDIS_URL: z.string().regex(/^rediss?:\/\/./, { error: "expected a redis:// or rediss:// URL" })
    .optional(),
  /** With Redis unreachable, rate limits (rpm, tpm, concurrency) are `open` (not enforced) or `closed`. */
  GATEWAY_REDIS_RATE_LIMITS_ON_FAILURE: z.enum(["open", "closed"]).default("open"),
  /** With Redis unreachable, budgets are `closed` (402 for keys with a budget) or `open`. */
  GATEWAY_REDIS_BUDGETS_ON_FAILURE: z.enum(["open", "closed"]).default("closed"),
  /** Longest wait for one Redis command before it counts as unreachable. */
  GATEWAY_REDIS_TIMEOUT_MS: positiveIntSetting(250),
  /** Days of usage ledger rows kept. */
  GATEWAY_USAGE_RETENTION_DAYS: positiveIntSetting(90),
  /** Longest a usage row waits in memory before its batch is written. */
  GATEWAY_USAGE_FLUSH_MS: positiveIntSetting(1_000),
  /** Deno's built-in OpenTelemetry export (read by Deno itself); on, the gateway adds its GenAI spans. */
  OTEL_DENO: flagSetting(false),
  /** Record prompt and completion text in spans (off: never, as they may hold personal data). */
  GATEWAY_TRACE_CONTENT: flagSetting(false),
  /** `builtin` (the pooled HTTP/1.1 client of upstream/http1_client.ts) or `fetch` (Deno's, with proxies). */
  GATEWAY_UPSTREAM_CLIENT: z.enum(["builtin", "fetch"]).optional(),
  /** The suite's auth service (OIDC issuer) the admin console signs in through; unset: no console. */
  AUTH_ISSUER: z.url({ protocol: /^https?$/, error: "expected an http(s) issuer URL" }).optional(),
  /** Public origin of the gateway as browsers reach it; the console's redirect URI is `{it}/admin/callback`. */
  GATEWAY_CONSOLE_URL: z.url({ protocol: /^https?$/, error: "expected an http(s) origin" }).optional(),
  /** The console's OAuth client id (`deno task oauth:register`). */
  GATEWAY_CONSOLE_CLIENT_ID: z.string().min(1).optional(),
  /** The console's OAuth client secret (secret). */
  GATEWAY_CONSOLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Comma-separated auth user ids or emails allowed into the console. */
  GATEWAY_ADMINS: z.string().optional(),
  /** How long a console session lasts before the admin signs in again. */
  GATEWAY_CONSOLE_SESSION_MINUTES: positiveIntSetting(480),
  LOG_LEVEL: logLevelSetting,
  ...identityConfigShape,
});

/** The console keys that must be set together (any one set turns the console on). */
const CONSOLE_KEYS = [
  "AUTH_ISSUER",
  "GATEWAY_CONSOLE_URL",
  "GATEWAY_CONSOLE_CLIENT_ID",
  "GATEWAY_CONSOLE_CLIENT_SECRET",
  "GATEWAY_ADMINS",
] as const;

/** A half-configured console is refused: every console key is named that is missing. */
function consoleProblems(env: GatewayEnvConfig): ConfigProblem[] {
  const set = CONSOLE_KEYS.filter((key) => env[key]);
  if (!set.length) return [];
  return CONSOLE_KEYS.filter((key) => !env[key]).map((key) => ({
    key,
    message: `is required for the admin console (set with ${set.join(", ")})`,
  }));
}

/** Environment part of the configuration. */
export type GatewayEnvConfig = z.output<typeof gatewayConfigSchema>;

/** Validated gateway configuration. */
export type GatewayConfig = Readonly<
  GatewayEnvConfig & {
    /** The parsed config file (empty when GATEWAY_CONFIG is unset). */
    file: GatewayFile;
    /** Providers with credentials, in registry order. */
    providers: readonly ProviderSettings[];
    /** The upstream HTTP client: GATEWAY_UPSTREAM_CLIENT, else `fetch` when a proxy is set, else `builtin`. */
    upstreamClient: "builtin" | "fetch";
  }
>;

function builtinProviders(env: GatewayEnvConfig): ProviderSettings[] {
  const out: ProviderSettings[] = [];
  if (env.ANTHROPIC_API_KEY) {
    out.push({
      name: "anthropic",
      kind: "anthropic",
      baseUrl: env.ANTHROPIC_BASE_URL,
      apiKey: env.ANTHROPIC_API_KEY,
      quirks: OPENAI_QUIRKS,
    });
  }
  if (env.OPENAI_API_KEY) {
    out.push({
      name: "openai",
      kind: "openai",
      baseUrl: env.OPENAI_BASE_URL,
      apiKey: env.OPENAI_API_KEY,
      quirks: OPENAI_QUIRKS,
    });
  }
  if (env.GEMINI_API_KEY) {
    out.push({
      name: "gemini",
      kind: "gemini",
      baseUrl: env.GEMINI_BASE_URL,
      apiKey: env.GEMINI_API_KEY,
      quirks: OPENAI_QUIRKS,
    });
  }
  return out;
}

/** Every `provider/model` target of the file (aliases, tiers, fallbacks), keyed by where it is written. */
function modelTargets(file: GatewayFile): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [alias, target] of Object.entries(file.aliases ?? {})) {
    out.push([`GATEWAY_CONFIG: aliases.${alias}`, target]);
  }
  for (const [tier, target] of Object.entries(file.tiers ?? {})) {
    if (target) out.push([`GATEWAY_CONFIG: tiers.${tier}`, target]);
  }
  for (const [name, group] of Object.entries(file.deployments ?? {})) {
    group.targets.forEach((d, i) => out.push([`GATEWAY_CONFIG: deployments.${name}.targets.${i}`, d.target]));
  }
  for (const [key, targets] of Object.entries(file.fallbacks ?? {})) {
    targets.forEach((target, i) => out.push([`GATEWAY_CONFIG: fallbacks.${key}.${i}`, target]));
  }
  return out;
}

/** Fallback and deployment targets must name offered providers (a typo would otherwise surface only during an outage). */
function fallbackProblems(file: GatewayFile, providers: readonly ProviderSettings[]): ConfigProblem[] {
  const offered = new Set(providers.map((p) => p.name));
  const problems: ConfigProblem[] = [];
  const lists: Array<[string, readonly string[]]> = [
    ...Object.entries(file.fallbacks ?? {}).map(([key, targets]) =>
      [`fallbacks.${key}`, targets] as [string, string[]]
    ),
    ...Object.entries(file.deployments ?? {}).map((
      [key, group],
    ) => [`deployments.${key}.targets`, group.targets.map((d) => d.target)] as [string, string[]]),
  ];
  for (const [key, targets] of lists) {
    targets.forEach((target, i) => {
      const provider = parseTarget(target)?.provider ?? target;
      if (!offered.has(provider)) {
        problems.push({
          key: `GATEWAY_CONFIG: ${key}.${i}`,
          message: `target ${JSON.stringify(target)} names provider ${provider}, which is not offered`,
        });
      }
    });
  }
  return problems;
}

/** Reads the gateway configuration; `readFile` loads GATEWAY_CONFIG. Throws a ConfigError naming every bad key. */
export function readGatewayConfig(
  env: Env,
  readFile: (path: string) => string = (path) => Deno.readTextFileSync(path),
): GatewayConfig {
  const problems: ConfigProblem[] = [];
  let parsed: GatewayEnvConfig | undefined;
  try {
    parsed = readConfig(gatewayConfigSchema, env, "gateway configuration");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  let file: GatewayFile = {};
  const path = env.GATEWAY_CONFIG;
  if (path) {
    let text: string | undefined;
    try {
      text = readFile(path);
    } catch (error) {
      problems.push({ key: "GATEWAY_CONFIG", message: `cannot read ${path}: ${(error as Error).message}` });
    }
    if (text !== undefined) {
      const result = parseGatewayFile(text, path);
      problems.push(...result.problems);
      if (result.file) file = result.file;
    }
  }
  if (problems.length || !parsed) throw new ConfigError(problems, "gateway configuration");
  const declared = fileProviders(file, env);
  const cloud = resolveCloudProviders(file, env, readFile);
  const providers = [...builtinProviders(parsed), ...declared.providers, ...cloud.providers];
  problems.push(...declared.problems, ...cloud.problems, ...fallbackProblems(file, providers));
  problems.push(...bedrockTargetProblems(modelTargets(file), providers), ...consoleProblems(parsed));
  problems.push(...identityProblems(parsed));
  if (problems.length) throw new ConfigError(problems, "gateway configuration");
  const proxied = PROXY_VARIABLES.some((name) => env[name] || env[name.toLowerCase()]);
  const upstreamClient = parsed.GATEWAY_UPSTREAM_CLIENT ?? (proxied ? "fetch" : "builtin");
  return Object.freeze({ ...parsed, file, providers, upstreamClient });
}
