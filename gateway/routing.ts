/**
 * Model routing. A name resolves, first match wins:
 * 1. an exact alias (`aliases:` key without `*`);
 * 2. `provider/model` naming an offered provider;
 * 3. a glob alias (`aliases:` key with `*`, matching any run of characters): of several that match, the one
 *    with the longest literal prefix (the text before its first `*`), then the most literal characters, then
 *    the one written first;
 * 4. a tier default (`tiers: {opus, sonnet, haiku}`) for a Claude name of that tier (`claude-opus-4-1-20250805`,
 *    `claude-3-5-haiku-20241022`, `claude-sonnet-4-5`): Claude Code's main and background models;
 * 5. the known families (`claude-*` → anthropic, `gpt-*`/`o<digit>*`/`chatgpt-*` → openai, `gemini-*` →
 *    gemini).
 * A target whose model part is `*` (`anthropic/*`) keeps the requested name as the upstream model.
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

/** Claude Code's model tiers. */
export type Tier = "opus" | "sonnet" | "haiku";

const FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/^claude-/, "anthropic"],
  [/^(gpt-|chatgpt-|o\d)/, "openai"],
  [/^gemini-/, "gemini"],
];

/** The tier of a Claude model name: its `opus` / `sonnet` / `haiku` segment. */
const TIER_OF_NAME = /^claude-(?:.*-)?(opus|sonnet|haiku)(?:-|$)/;

const HOW_TO_FIND = "list valid names with GET /compat/v1/models, or use provider/model";

/** Most glob and tier resolutions remembered (a client can send any name; the memo stops growing). */
const MAX_MEMO = 1024;

/** One compiled glob alias. */
interface Glob {
  pattern: RegExp;
  target: string;
  prefix: number;
  literals: number;
  order: number;
}

/** Compiles `key` (`*` = any run of characters) to an anchored regular expression. */
function globPattern(key: string): RegExp {
  const escaped = key.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`, "s");
}

/** Sorts glob aliases by precedence: longest literal prefix, most literal characters, order written. */
export function compileGlobs(aliases: Readonly<Record<string, string>>): readonly Glob[] {
  const globs = Object.entries(aliases)
    .filter(([key]) => key.includes("*"))
    .map(([key, target], order) => ({
      pattern: globPattern(key),
      target,
      prefix: key.indexOf("*"),
      literals: key.replaceAll("*", "").length,
      order,
    }));
  return globs.sort((a, b) => b.prefix - a.prefix || b.literals - a.literals || a.order - b.order);
}

/** Resolves model names to providers. */
export class ModelRouter {
  #providers: ReadonlyMap<string, Provider>;
  #aliases: Readonly<Record<string, string>>;
  #globs: readonly Glob[];
  #tiers: Readonly<Partial<Record<Tier, string>>>;
  #memo = new Map<string, string>();

  /**
   * `aliases` maps names (exact, or globs with `*`) to `provider/model` targets; `tiers` gives the target of
   * each Claude tier's names that nothing else routes.
   */
  constructor(
    providers: ReadonlyMap<string, Provider>,
    aliases: Readonly<Record<string, string>> = {},
    tiers: Readonly<Partial<Record<Tier, string>>> = {},
  ) {
    this.#providers = providers;
    this.#aliases = Object.fromEntries(Object.entries(aliases).filter(([key]) => !key.includes("*")));
    this.#globs = compileGlobs(aliases);
    this.#tiers = tiers;
  }

  /** The offered providers. */
  get providers(): ReadonlyMap<string, Provider> {
    return this.#providers;
  }

  /** The configured target `model` is rewritten to by a glob alias or a tier default, if any. */
  #indirect(model: string): string | undefined {
    if (this.#globs.length === 0 && !this.#tiers.opus && !this.#tiers.sonnet && !this.#tiers.haiku) {
      return undefined;
    }
    const memo = this.#memo.get(model);
    if (memo !== undefined) return memo || undefined;
    let target: string | undefined;
    for (const glob of this.#globs) {
      if (glob.pattern.test(model)) {
        target = glob.target;
        break;
      }
    }
    if (target === undefined) {
      const tier = TIER_OF_NAME.exec(model)?.[1] as Tier | undefined;
      if (tier) target = this.#tiers[tier];
    }
    if (this.#memo.size < MAX_MEMO) this.#memo.set(model, target ?? "");
    return target;
  }

  /** Resolves `model`, throwing 404 not_found_error when nothing serves it. */
  resolve(model: string): Route {
    let target = Object.hasOwn(this.#aliases, model) ? this.#aliases[model] : model;
    let named = parseTarget(target);
    if (target === model && !(named && this.#providers.has(named.provider))) {
      const indirect = this.#indirect(model);
      if (indirect !== undefined) {
        target = indirect;
        named = parseTarget(target);
      }
    }
    const provider = named && this.#providers.get(named.provider);
    if (named && provider) return { provider, upstreamModel: named.model === "*" ? model : named.model };
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
