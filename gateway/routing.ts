/**
 * Model routing: `provider/model` always; otherwise the alias table, then the known families (`claude-*` →
 * anthropic, `gpt-*`/`o<digit>*`/`chatgpt-*` → openai, `gemini-*` → gemini).
 */
import { GatewayError } from "./errors.ts";
import type { Provider } from "./providers/contract.ts";
import { parseTarget } from "./target.ts";

/** Where one request goes. */
export interface Route {
  /** The provider serving it. */
  provider: Provider;
  /** The model name at that provider. */
  upstreamModel: string;
}

const FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/^claude-/, "anthropic"],
  [/^(gpt-|chatgpt-|o\d)/, "openai"],
  [/^gemini-/, "gemini"],
];

const HOW_TO_FIND = "list valid names with GET /compat/v1/models, or use provider/model";

/** Resolves model names to providers. */
export class ModelRouter {
  #providers: ReadonlyMap<string, Provider>;
  #aliases: Readonly<Record<string, string>>;

  /** `aliases` maps names to `provider/model` targets. */
  constructor(providers: ReadonlyMap<string, Provider>, aliases: Readonly<Record<string, string>> = {}) {
    this.#providers = providers;
    this.#aliases = aliases;
  }

  /** The offered providers. */
  get providers(): ReadonlyMap<string, Provider> {
    return this.#providers;
  }

  /** Resolves `model`, throwing 404 not_found_error when nothing serves it. */
  resolve(model: string): Route {
    const target = Object.hasOwn(this.#aliases, model) ? this.#aliases[model] : model;
    const named = parseTarget(target);
    const provider = named && this.#providers.get(named.provider);
    if (named && provider) return { provider, upstreamModel: named.model };
    for (const [pattern, name] of FAMILIES) {
      if (!pattern.test(target)) continue;
      const provider = this.#providers.get(name);
      if (provider) return { provider, upstreamModel: target };
      throw new GatewayError(
        "not_found_error",
        `model ${
          JSON.stringify(model)
        } belongs to provider ${name}, which is not configured on this gateway; ` +
          HOW_TO_FIND,
      );
    }
    throw new GatewayError("not_found_error", `model ${JSON.stringify(model)} was not found; ${HOW_TO_FIND}`);
  }

  /** True when `model` routes somewhere. */
  routes(model: string): boolean {
    try {
      this.resolve(model);
      return true;
    } catch {
      return false;
    }
  }
}
