/**
 * The probes of the active health checks (health_checks.ts): `request` sends a one-token Messages request
 * through the deployment's own provider (any kind: the same URL, credentials and translation as real
 * traffic); `models` GETs the provider's model list (`{base}/models` for OpenAI kinds, `{base}/v1/models` for
 * Anthropic, `{base}/v1beta/models` for Gemini; other kinds fall back to `request`).
 */
import { upstreamHttpError } from "../errors.ts";
import type { Provider, ProviderSettings } from "../providers/contract.ts";
import { credentialHeader } from "../providers/openai.ts";
import type { ModelRouter } from "../routing.ts";
import type { UpstreamFetch } from "./response.ts";
import type { HealthProbe } from "./health_checks.ts";

/** The model-list request of a provider, when its kind has one. */
function modelListOf(
  settings: ProviderSettings,
): { url: string; headers: Record<string, string> } | undefined {
  switch (settings.kind) {
    case "openai":
    case "openai-compatible":
    case "openai-responses": {
      const credential = credentialHeader(settings);
      return {
        url: `${settings.baseUrl}/models`,
        headers: credential ? { [credential[0]]: credential[1] } : {},
      };
    }
    case "anthropic":
      return {
        url: `${settings.baseUrl}/v1/models`,
        headers: {
          "anthropic-version": "2023-06-01",
          ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}),
        },
      };
    case "gemini":
      return {
        url: `${settings.baseUrl}/v1beta/models`,
        headers: settings.apiKey ? { "x-goog-api-key": settings.apiKey } : {},
      };
    default:
      return undefined;
  }
}

/** Sends a one-token request to `provider`'s `upstreamModel`. */
async function cheapRequest(provider: Provider, target: string, upstreamModel: string, signal: AbortSignal) {
  const abort = new AbortController();
  signal.addEventListener("abort", () => abort.abort(signal.reason), { once: true });
  await provider.createMessage({
    request: { model: target, max_tokens: 1, messages: [{ role: "user", content: "ping" }] },
    upstreamModel,
    requestedModel: target,
    abort,
    trace: { traceId: `health-check-${crypto.randomUUID()}` },
    clientHeaders: new Headers(),
    inputTokensEstimate: 1,
  });
}

/** The probe of a gateway's deployments. */
export function createHealthProbe(
  router: ModelRouter,
  settings: readonly ProviderSettings[],
  fetch: UpstreamFetch,
  redact: (text: string) => string,
): HealthProbe {
  return async (target, probe, signal) => {
    const route = router.resolve(target);
    const list = probe === "models"
      ? modelListOf(settings.find((s) => s.name === route.provider.name)!)
      : undefined;
    if (!list) return await cheapRequest(route.provider, target, route.upstreamModel, signal);
    const response = await fetch(list.url, { method: "GET", headers: list.headers, signal });
    if (!response.ok) throw await upstreamHttpError(route.provider.name, response, redact);
    await response.text();
  };
}
