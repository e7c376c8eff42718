/**
 * The gateway's application: the Anthropic Messages API at `/v1/...` and `/compat/v1/...` (query strings
 * such as `?beta=true` ignored), API-key auth by `X-API-Key` or `Authorization: Bearer`, tracing headers,
 * and every failure rendered in the Anthropic error envelope with a `request-id` header. `POST` messages
 * go to the lean route of messages_route.ts; everything else to the Hono routes here.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HEALTH_PATH, healthResponse } from "@switchyard/lib/health.ts";
import { requestId, type RequestIdVariables } from "@switchyard/lib/request_id.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import type { GatewayConfig } from "./config/mod.ts";
import { errorResponse, GatewayError, invalidRequest } from "./errors.ts";
import { parseJsonBody, validateCountTokensRequest } from "./messages/validate.ts";
import { buildCatalogue, type ModelInfo, pageOf } from "./models.ts";
import type { ProviderDeps, TraceIds } from "./providers/contract.ts";
import type { UpstreamFetch } from "./upstream/response.ts";
import { createProviders } from "./providers/registry.ts";
import { createUpstreamFetch } from "./upstream/fetch.ts";
import type { UpstreamLimits } from "./upstream/guard.ts";
import { ModelRouter } from "./routing.ts";
import { DeploymentPool } from "./upstream/deployments.ts";
import { createRedactor, redactingLogger } from "./secrets.ts";
import { type BreakerPolicy, CircuitBreakers } from "./upstream/circuit_breaker.ts";
import { type RetryPolicy, UpstreamAttempts } from "./upstream/attempts.ts";
import { LimitEnforcer } from "./limits/enforcer.ts";
import { type LimitCounters, MemoryCounters } from "./limits/counters.ts";
import { RedisCounters } from "./limits/redis_counters.ts";
import { RedisConnection } from "./limits/redis_connection.ts";
import { RedisDeploymentState } from "./upstream/shared_deployments.ts";
import { HealthChecks, healthPlans } from "./upstream/health_checks.ts";
import { createHealthProbe } from "./upstream/health_probe.ts";
import { PriceTable } from "./pricing.ts";
import type { Kysely } from "kysely";
import type { UsageDatabase, UsageLedger } from "./usage/ledger.ts";
import { parseUsageFilters, spentSince, usageReport } from "./usage/report.ts";
import { createGatewayTracer } from "./tracing.ts";
import { CONSOLE_PATH, consoleSettings } from "./console/settings.ts";
import { type ConsoleDeps, createConsole, isConsolePath } from "./console/app.ts";
import { exchangeGithubOidc, GITHUB_OIDC_PATH } from "./identity/exchange_route.ts";
import type { GithubOidcExchange } from "./identity/github_oidc.ts";
import { createMessagesRoute, MESSAGES_PATHS, type MessagesRouteDeps } from "./messages_route.ts";
import { pathOf, providerCall } from "./pipeline/steps.ts";
import { createOpenAiRoutes } from "./openai/routes.ts";
import {
  authenticate,
  bodyTooLarge,
  type KeyCheck,
  MAX_BODY_BYTES,
  readBodyText,
  renderError,
  traceIdsOf,
  traceResponseHeaders,
} from "./request_context.ts";

export { type KeyCheck, MAX_BODY_BYTES };

/** Name reported by the health endpoint. */
export const GATEWAY_SERVICE_NAME = "gateway";

/** What the gateway needs from the world. */
export interface GatewayDeps {
  /** Structured logger. */
  logger: Logger;
  /** API key verification. */
  keys: KeyCheck;
  /** Upstream HTTP calls (defaults to the client GATEWAY_UPSTREAM_CLIENT names). */
  fetch?: UpstreamFetch;
  /** Limit counters (defaults to Redis when GATEWAY_REDIS_URL is set, else in-process). */
  counters?: LimitCounters;
  /** The usage ledger and the database it reports from (no ledger: no rows, no admin usage API). */
  usage?: { ledger: UsageLedger; db: () => Promise<Kysely<UsageDatabase>> };
  /** How the admin console reaches the auth service (defaults to `fetch`). */
  consoleFetch?: typeof fetch;
  /** The GitHub Actions OIDC exchange (gateway/identity/), when configured. */
  githubOidc?: GithubOidcExchange;
}

type Variables = RequestIdVariables & { trace: TraceIds; keyId: string; keyModels?: readonly string[] };

/** Refuses bodies over the limit, by `content-length` or, for chunked bodies, while reading them. */
const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw bodyTooLarge();
  },
});

/** A built gateway: one fetch handler. */
export interface GatewayApp {
  /** Handles one request. */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /** Releases what the app holds (the Redis connection). */
  close(): Promise<void>;
}

/** The limit counters the configuration asks for. */
export function countersFor(config: GatewayConfig): LimitCounters {
  return config.GATEWAY_REDIS_URL
    ? new RedisCounters({ url: config.GATEWAY_REDIS_URL, timeoutMs: config.GATEWAY_REDIS_TIMEOUT_MS })
    : new MemoryCounters();
}

/**
 * The Redis connection the deployment state shares (upstream/shared_deployments.ts): the limit counters' own
 * when they are in Redis, else one of its own when GATEWAY_REDIS_URL is set (`owned`: closed with the app).
 */
function sharedRedis(
  config: GatewayConfig,
  counters: LimitCounters,
): { connection: RedisConnection; owned: boolean } | undefined {
  if (!config.GATEWAY_REDIS_URL) return undefined;
  if (counters instanceof RedisCounters) return { connection: counters.redis, owned: false };
  const connection = new RedisConnection({
    url: config.GATEWAY_REDIS_URL,
    timeoutMs: config.GATEWAY_REDIS_TIMEOUT_MS,
  });
  return { connection, owned: true };
}

/** Output-token limits declared in the config file's `models`, by id (`provider/model` or alias). */
function maxTokensTable(
  file: GatewayConfig["file"],
): (requested: string, target: string) => number | undefined {
  const limits = new Map<string, number>();
  for (const model of file.models ?? []) if (model.max_tokens) limits.set(model.id, model.max_tokens);
  return (requested, target) => limits.get(requested) ?? limits.get(target);
}

/** The upstream deadlines and size caps from the configuration. */
export function upstreamLimits(config: GatewayConfig): UpstreamLimits {
  return Object.freeze({
    connectTimeoutMs: config.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS,
    idleTimeoutMs: config.GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS,
    maxBodyBytes: config.GATEWAY_UPSTREAM_MAX_BODY_BYTES,
    maxSseLineBytes: config.GATEWAY_UPSTREAM_MAX_SSE_LINE_BYTES,
  });
}

/** Retry budget (config file `retry`): 60 s in all, backoff from 250 ms, waits of at most 10 s. */
function retryPolicy(config: GatewayConfig): RetryPolicy {
  const retry = config.file.retry ?? {};
  return {
    deadlineMs: retry.deadline_ms ?? 60_000,
    backoffMs: retry.backoff_ms ?? 250,
    maxBackoffMs: retry.max_backoff_ms ?? 10_000,
  };
}

/** The credential name of each provider, by routing name (a deployment's circuit includes it). */
function credentialsOf(config: GatewayConfig): (provider: string) => string {
  const names = new Map(config.providers.map((p) => [p.name, p.credentialName ?? ""]));
  return (provider) => names.get(provider) ?? "";
}

/** Circuit breaker (config file `circuit_breaker`): open after 5 consecutive failures, for 30 s. */
function breakerPolicy(config: GatewayConfig): BreakerPolicy {
  const breaker = config.file.circuit_breaker ?? {};
  return { failures: breaker.failures ?? 5, cooldownMs: breaker.cooldown_ms ?? 30_000 };
}

/** Builds the gateway application. */
export function createGatewayApp(config: GatewayConfig, deps: GatewayDeps): GatewayApp {
  const redact = createRedactor([
    ...config.providers.flatMap((p) => [p.apiKey, ...(p.secrets ?? [])]),
    config.GATEWAY_DATABASE_AUTH_TOKEN,
    config.GATEWAY_CONSOLE_CLIENT_SECRET,
    config.GATEWAY_OIDC_CLIENT_SECRET,
    config.GATEWAY_IDENTITY_SECRET,
  ]);
  // Every log line of the gateway passes the redactor: upstream errors and causes may quote a credential.
  const logger = redactingLogger(deps.logger, redact);
  const providerDeps: ProviderDeps = {
    fetch: deps.fetch ??
      createUpstreamFetch(config.upstreamClient, {
        connectTimeoutMs: config.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS,
      }),
    pingIntervalMs: config.GATEWAY_PING_INTERVAL_MS,
    redact,
    limits: upstreamLimits(config),
  };
  const providers = createProviders(config.providers, providerDeps);
  const counters = deps.counters ?? countersFor(config);
  const redis = sharedRedis(config, counters);
  const pool = new DeploymentPool(
    config.file.deployments ?? {},
    Math.random,
    Date.now,
    redis && {
      state: new RedisDeploymentState(redis.connection),
      onChange: (up, error) =>
        up
          ? logger.info("deployment state: redis answers again; sharing resumed", {})
          : logger.warn("deployment state: redis unreachable; each instance uses its own state", {
            error: error instanceof Error ? error.message : String(error),
          }),
    },
  );
  // A group's name routes to its first deployment (for the checks made before the attempts), over any alias.
  const router = new ModelRouter(
    providers,
    { ...config.file.aliases, ...Object.fromEntries(pool.names()) },
    config.file.tiers ?? {},
  );
  const checks = new HealthChecks(
    pool,
    healthPlans(pool, config.file.health_checks),
    createHealthProbe(router, config.providers, providerDeps.fetch, redact),
    (target, healthy, error) =>
      healthy
        ? logger.info("deployment healthy again", { upstream: target })
        : logger.warn("deployment failed its health checks; left out", {
          upstream: target,
          error: error instanceof Error ? error.message : String(error),
        }),
  );
  const prices = new PriceTable(config.file.pricing ?? {});
  const usage = deps.usage;
  const limits = new LimitEnforcer(counters, prices, logger, {
    rateLimits: config.GATEWAY_REDIS_RATE_LIMITS_ON_FAILURE,
    budgets: config.GATEWAY_REDIS_BUDGETS_ON_FAILURE,
  }, { spentSince: usage && (async (keyId, since) => spentSince(await usage.db(), keyId, since)) });
  const breakers = new CircuitBreakers(breakerPolicy(config));
  const catalogue: ModelInfo[] = buildCatalogue(config.providers, config.file, (m) => router.routes(m));
  const routeDeps: MessagesRouteDeps = {
    router,
    keys: deps.keys,
    logger,
    pingIntervalMs: config.GATEWAY_PING_INTERVAL_MS,
    maxTokensOf: maxTokensTable(config.file),
    bodyTimeoutMs: config.GATEWAY_CLIENT_BODY_TIMEOUT_MS,
    limits,
    prices,
    ledger: deps.usage?.ledger,
    tracer: config.OTEL_DENO ? createGatewayTracer({ content: config.GATEWAY_TRACE_CONTENT }) : undefined,
    attempts: new UpstreamAttempts(
      router,
      config.file.fallbacks ?? {},
      breakers,
      retryPolicy(config),
      Math.random,
      credentialsOf(config),
      pool,
    ),
  };
  const messages = createMessagesRoute(routeDeps);
  const openAi = createOpenAiRoutes(routeDeps, { providers: config.providers, providerDeps }, catalogue);

  const api = new Hono<{ Variables: Variables }>();
  api.use(async (c, next) => {
    const trace = traceIdsOf(c.req.raw.headers);
    c.set("trace", trace);
    await next();
    for (const [name, value] of Object.entries(traceResponseHeaders(trace, {}))) {
      c.res.headers.set(name, value);
    }
  });
  api.use(async (c, next) => {
    const policy = await authenticate(deps.keys, c.req.raw.headers);
    c.set("keyId", policy.id);
    c.set("keyModels", policy.models);
    await next();
  });

  api.post("/v1/messages/count_tokens", limitBody, async (c) => {
    const text = await readBodyText(c.req.raw, config.GATEWAY_CLIENT_BODY_TIMEOUT_MS);
    const request = validateCountTokensRequest(parseJsonBody(text));
    const { provider, call } = providerCall(router, request, text, c.get("trace"), c.req.raw.headers);
    const { input_tokens, source } = await provider.countTokens(call);
    // Says how the count was made: by the upstream's own counter, OpenAI's tokenizer, or the local estimate.
    return c.json({ input_tokens }, 200, { "gw-token-count": source });
  });

  // A key limited to some models lists only those (by the name asked for or the target it routes to, as the
  // request path checks them).
  const usable = (allowed: readonly string[] | undefined) =>
    allowed ? catalogue.filter((m) => allowed.includes(m.id) || allowed.includes(targetOf(m.id))) : catalogue;
  const targetOf = (id: string) => {
    try {
      const route = router.resolve(id);
      return `${route.provider.name}/${route.upstreamModel}`;
    } catch {
      return id;
    }
  };
  api.get("/v1/models", (c) => c.json(pageOf(usable(c.get("keyModels")), new URL(c.req.url).searchParams)));

  api.get("/v1/models/:id{.+}", (c) => {
    let id = c.req.param("id");
    try {
      id = decodeURIComponent(id);
    } catch {
      throw invalidRequest("model id is not valid percent-encoding");
    }
    const found = catalogue.find((m) => m.id === id);
    if (found) return c.json(found);
    if (router.routes(id)) return c.json(buildCatalogue([], { models: [{ id }] }, () => true)[0]);
    throw new GatewayError("not_found_error", `model ${JSON.stringify(id)} was not found`);
  });

  const hono = new Hono<{ Variables: Variables }>();
  hono.use(requestId({ header: "request-id", logger }));
  hono.get(HEALTH_PATH, () => healthResponse(GATEWAY_SERVICE_NAME));
  hono.get(`${CONSOLE_PATH}/api/usage`, async (c) => {
    await authenticate(deps.keys, c.req.raw.headers, true);
    if (!deps.usage) throw new GatewayError("not_found_error", "the usage ledger is not enabled");
    const query = new URL(c.req.url).searchParams;
    const raw: Record<string, string> = {};
    for (const name of ["key", "since", "until", "by"]) {
      const value = query.get(name);
      if (value !== null) raw[name] = value;
    }
    const parsed = parseUsageFilters(raw, "");
    if (!parsed.ok) throw invalidRequest(parsed.problems.join("; "));
    return c.json(await usageReport(await deps.usage.db(), parsed.filters));
  });
  const exchange = deps.githubOidc;
  if (exchange) hono.post(GITHUB_OIDC_PATH, (c) => exchangeGithubOidc(c.req.raw, exchange));
  hono.route("/", api);
  hono.route("/compat", api);
  hono.notFound((c) =>
    errorResponse(
      new GatewayError("not_found_error", `no route for ${c.req.method} ${c.req.path}`),
      c.get("requestId"),
    )
  );
  hono.onError((error, c) => renderError(error, c.get("requestId"), logger));
  const settings = consoleSettings(config);
  const adminConsole = settings && usage
    ? createConsole({
      settings,
      db: usage.db as unknown as ConsoleDeps["db"],
      counters: limits.counters,
      breakers,
      providers: config.providers,
      keysChanged: () => void deps.keys.refresh?.().catch(() => {}),
      logger,
      fetch: deps.consoleFetch,
    })
    : undefined;
  return {
    fetch: (request, env) => {
      if (adminConsole && isConsolePath(pathOf(request.url))) return adminConsole(request);
      if (request.method === "POST") {
        const path = pathOf(request.url);
        if (MESSAGES_PATHS.has(path)) return messages(request, path);
      }
      const openAiAnswer = openAi(request);
      if (openAiAnswer) return openAiAnswer;
      return hono.fetch(request, env);
    },
    close: async () => {
      checks.close();
      await deps.usage?.ledger.close();
      await limits.counters.close();
      if (redis?.owned) await redis.connection.close();
    },
  };
}
