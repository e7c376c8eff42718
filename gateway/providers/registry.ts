/** The explicit provider registry: which module serves which provider family. */
import type { Provider, ProviderDeps, ProviderKind, ProviderSettings } from "./contract.ts";
import { createAnthropicProvider } from "./anthropic.ts";
import { createBedrockProvider } from "./bedrock.ts";
import { createGeminiProvider } from "./gemini.ts";
import { createOpenAiProvider } from "./openai.ts";
import { createOpenAiResponsesProvider } from "./openai_responses.ts";
import { createVertexProvider } from "./vertex.ts";

/** Module factory per provider family. */
export const PROVIDER_MODULES: Readonly<
  Record<ProviderKind, (settings: ProviderSettings, deps: ProviderDeps) => Provider>
> = {
  anthropic: createAnthropicProvider,
  openai: createOpenAiProvider,
  gemini: createGeminiProvider,
  "openai-compatible": createOpenAiProvider,
  "openai-responses": createOpenAiResponsesProvider,
  bedrock: createBedrockProvider,
  vertex: createVertexProvider,
};

/** Instantiates every configured provider, keyed by routing name. */
export function createProviders(
  settings: readonly ProviderSettings[],
  deps: ProviderDeps,
): Map<string, Provider> {
  return new Map(settings.map((s) => [s.name, PROVIDER_MODULES[s.kind](s, deps)]));
}
