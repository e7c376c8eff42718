/**
 * The optional gateway config file (`GATEWAY_CONFIG`, YAML or JSON): extra providers (OpenAI-compatible
 * servers, directly or through a preset, OpenAI Responses API endpoints, Amazon Bedrock and Google Vertex AI),
 * the alias table and the model catalogue listed by `/v1/models`. Credentials never live in the file: a
 * provider names the environment variable holding its key (`api_key_env`).
 */
import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { type ConfigProblem } from "@switchyard/lib/config.ts";
import { PRESET_NAMES } from "../providers/presets.ts";
import { CLOUD_ENTRY_FIELDS } from "./cloud_fields.ts";

const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const quirksSchema = z.object({
  stream_options: z.boolean().optional(),
  parallel_tool_calls: z.boolean().optional(),
  max_tokens_field: z.enum(["max_tokens", "max_completion_tokens"]).optional(),
  nine_char_tool_ids: z.boolean().optional(),
  tool_choice_any: z.enum(["required", "any"]).optional(),
  structured_outputs: z.boolean().optional(),
  forced_tool_choice: z.boolean().optional(),
  reasoning_field: z.enum(["reasoning_content", "reasoning", "any"]).optional(),
  reasoning_request: z.enum(["reasoning_effort", "reasoning_max_tokens", "none"]).optional(),
  unsupported_params: z.object({
    temperature: z.enum(["drop", "refuse"]).optional(),
    top_p: z.enum(["drop", "refuse"]).optional(),
    stop: z.enum(["drop", "refuse"]).optional(),
    user: z.enum(["drop", "refuse"]).optional(),
  }).strict().optional(),
}).strict();

/** Provider types the config file declares (the built-in three come from the environment). */
export const FILE_PROVIDER_TYPES = ["openai-compatible", "openai-responses", "bedrock", "vertex"] as const;

const providerSchema = z.object({
  /** Omitted: `openai-compatible` when a preset is named (or the entry's name is a preset's). */
  type: z.enum(FILE_PROVIDER_TYPES, {
    error: `expected one of ${FILE_PROVIDER_TYPES.map((t) => JSON.stringify(t)).join(", ")}`,
  }).optional(),
  preset: z.enum(PRESET_NAMES, { error: `expected a preset: ${PRESET_NAMES.join(", ")}` }).optional(),
  base_url: z.string().refine((raw) => /^https?:\/\/[^/]/.test(raw), {
    error: "expected an absolute http(s) URL such as https://api.groq.com/openai/v1",
  }).optional(),
  api_key_env: z.string().regex(ENV_NAME, { error: "expected an environment variable name" }).optional(),
  auth_header: z.string().regex(/^[A-Za-z0-9-]+$/, { error: "expected an HTTP header name" }).optional(),
  quirks: quirksSchema.optional(),
  models: z.array(z.string().min(1)).optional(),
  ...CLOUD_ENTRY_FIELDS,
}).strict();

/** One validated `providers:` entry. */
export type ProviderEntry = z.output<typeof providerSchema>;

const modelSchema = z.object({
  id: z.string().min(1),
  display_name: z.string().optional(),
  created_at: z.string().optional(),
  max_input_tokens: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
}).strict();

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
  cache_write_1h: z.number().nonnegative().optional(),
  source: z.string().optional(),
  as_of: z.string().optional(),
}).strict();

/** How deployments are health-checked (upstream/health_checks.ts). */
const healthCheckSchema = z.object({
  interval_ms: z.number().int().min(100).optional(),
  timeout_ms: z.number().int().positive().optional(),
  probe: z.enum(["request", "models"]).optional(),
  unhealthy_after: z.number().int().positive().optional(),
}).strict();

/** Schema of the config file. */
export const gatewayFileSchema = z.object({
  providers: z.record(
    z.string().regex(PROVIDER_NAME, { error: "provider names are lowercase letters, digits, - and _" }),
    providerSchema,
  ).optional(),
  aliases: z.record(
    z.string().min(1),
    z.string().includes("/", { error: 'expected a "provider/model" target' }),
  ).optional(),
  models: z.array(modelSchema).optional(),
  /** The target of Claude names of each tier (`claude-opus-4-1-20250805`) that no alias routes. */
  tiers: z.object({
    opus: z.string().includes("/", { error: 'expected a "provider/model" target' }).optional(),
    sonnet: z.string().includes("/", { error: 'expected a "provider/model" target' }).optional(),
    haiku: z.string().includes("/", { error: 'expected a "provider/model" target' }).optional(),
  }).strict().optional(),
  /** Several deployments behind one model name (upstream/deployments.ts). */
  deployments: z.record(
    z.string().min(1),
    z.object({
      strategy: z.enum(["weighted", "least-busy", "latency", "round-robin"]).optional(),
      cooldown_ms: z.number().int().positive().optional(),
      targets: z.array(
        z.object({
          target: z.string().includes("/", { error: 'expected a "provider/model" target' }),
          weight: z.number().positive().optional(),
          rpm: z.number().int().positive().optional(),
          tpm: z.number().int().positive().optional(),
          health_check: z.union([z.literal(false), healthCheckSchema]).optional(),
        }).strict(),
      ).min(1),
    }).strict(),
  ).optional(),
  /** Active health checks of every deployment of every group (upstream/health_checks.ts). */
  health_checks: healthCheckSchema.optional(),
  /** Ordered fallback targets per model name (alias or `provider/model`) or per provider name. */
  fallbacks: z.record(
    z.string().min(1),
    z.array(z.string().includes("/", { error: 'expected "provider/model" targets' })).min(1),
  ).optional(),
  /** Time budget and backoff of the attempts of one request. */
  retry: z.object({
    deadline_ms: z.number().int().positive().optional(),
    backoff_ms: z.number().int().nonnegative().optional(),
    max_backoff_ms: z.number().int().nonnegative().optional(),
  }).strict().optional(),
  /** Prices in USD per million tokens by model (`provider/model` or bare name), over the built-in table. */
  pricing: z.record(z.string().min(1), priceSchema).optional(),
  /** Per-provider circuit breaker. */
  circuit_breaker: z.object({
    failures: z.number().int().positive().optional(),
    cooldown_ms: z.number().int().positive().optional(),
  }).strict().optional(),
}).strict();

/** The validated config file. */
export type GatewayFile = z.output<typeof gatewayFileSchema>;

/** Names reserved for the built-in providers. */
export const BUILTIN_PROVIDERS = ["anthropic", "openai", "gemini"] as const;

/** Parses and validates config file text; problems are keyed `GATEWAY_CONFIG: path.to.field`. */
export function parseGatewayFile(
  text: string,
  path: string,
): { file?: GatewayFile; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    raw = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    return {
      problems: [{ key: "GATEWAY_CONFIG", message: `${path} is not valid: ${(error as Error).message}` }],
    };
  }
  const result = gatewayFileSchema.safeParse(raw ?? {});
  if (!result.success) {
    return {
      problems: result.error.issues.map((issue) => ({
        key: `GATEWAY_CONFIG: ${issue.path.map(String).join(".") || "(root)"}`,
        message: `${issue.message} (in ${path})`,
      })),
    };
  }
  const problems: ConfigProblem[] = [];
  for (const name of Object.keys(result.data.providers ?? {})) {
    if ((BUILTIN_PROVIDERS as readonly string[]).includes(name)) {
      problems.push({
        key: `GATEWAY_CONFIG: providers.${name}`,
        message: `${name} is a built-in provider configured from the environment; choose another name`,
      });
    }
  }
  return problems.length ? { problems } : { file: result.data, problems };
}
