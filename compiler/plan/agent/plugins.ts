/**
 * `plugins:`: engine plugins installed with the engine's own CLI after the engine is installed and before the
 * agent runs. Items are `owner/repo@ref` or `{ plugin: "owner/repo@ref", github-token | token: "${{ … }}" }`.
 * The install token is the item's own, else `GH_AW_PLUGINS_TOKEN`, `GH_AW_GITHUB_TOKEN`, `GITHUB_TOKEN`.
 */
import type { StepPlan } from "../types.ts";
import { lit, plain } from "../../yaml/writer.ts";
import type { EngineFacts } from "../engines/facts.ts";
import { objectOf } from "../../source/values.ts";

const DEFAULT_TOKEN =
  "${{ secrets.GH_AW_PLUGINS_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** One plugin to install. */
export interface PluginRef {
  ref: string;
  token: string;
}

/** Reads `plugins:` (already shape-checked by the schema). */
export function pluginRefs(raw: unknown): PluginRef[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item) => {
    if (typeof item === "string") return { ref: item, token: DEFAULT_TOKEN };
    const o = objectOf(item);
    const token = o["github-token"] ?? o.token;
    return { ref: String(o.plugin), token: typeof token === "string" ? token : DEFAULT_TOKEN };
  });
}

/** Why `plugins:` cannot be used with an engine, or undefined when it can. */
export function pluginSupportProblem(
  engine: Pick<EngineFacts, "id" | "pluginInstall">,
  plugins: PluginRef[],
  /** The engines that install plugins. */
  installers: readonly string[],
): string | undefined {
  if (plugins.length === 0 || engine.pluginInstall) return undefined;
  return `engine "${engine.id}" has no plugin installer; plugins work with ${installers.join(", ")}`;
}

/** One install step per distinct token (each token only reaches the installs it is meant for). */
export function pluginInstallSteps(
  engine: Pick<EngineFacts, "pluginInstall">,
  plugins: PluginRef[],
): StepPlan[] {
  const cli = engine.pluginInstall;
  if (!cli || plugins.length === 0) return [];
  const byToken = new Map<string, string[]>();
  for (const p of plugins) byToken.set(p.token, [...(byToken.get(p.token) ?? []), p.ref]);
  return [...byToken.entries()].map(([token, refs], i) => ({
    name: byToken.size === 1 ? "Install plugins" : `Install plugins (${i + 1})`,
    env: { GH_TOKEN: plain(token), GITHUB_TOKEN: plain(token) },
    run: lit(refs.map((r) => `${cli} ${shellQuote(r)}`).join("\n") + "\n"),
  }));
}

function shellQuote(s: string): string {
  return /^[\w./@:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
