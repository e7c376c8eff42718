/**
 * `plugins:`: engine plugins installed with the engine's own CLI after the engine is installed and before the
 * agent runs. Items are `owner/repo@ref` or `{ plugin: "owner/repo@ref", github-token | token: "${{ … }}" }`.
 * The install token is the item's own, else `GH_AW_PLUGINS_TOKEN`, `GH_AW_GITHUB_TOKEN`, `GITHUB_TOKEN`.
 */
import type { StepPlan } from "../types.ts";
import { lit, plain } from "../../yaml/writer.ts";

/** Engines whose CLI installs plugins, and the command that does. */
export const PLUGIN_CLIS: Record<string, string> = {
  copilot: "copilot plugin install",
  claude: "claude plugin install",
  codex: "codex plugin install",
};

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
    const o = item as Record<string, unknown>;
    const token = o["github-token"] ?? o.token;
    return { ref: String(o.plugin), token: typeof token === "string" ? token : DEFAULT_TOKEN };
  });
}

/** Why `plugins:` cannot be used with an engine, or undefined when it can. */
export function pluginSupportProblem(engineId: string, plugins: PluginRef[]): string | undefined {
  if (plugins.length === 0 || PLUGIN_CLIS[engineId]) return undefined;
  return `engine "${engineId}" has no plugin installer; plugins work with ${
    Object.keys(PLUGIN_CLIS).join(", ")
  }`;
}

/** One install step per distinct token (each token only reaches the installs it is meant for). */
export function pluginInstallSteps(engineId: string, plugins: PluginRef[]): StepPlan[] {
  const cli = PLUGIN_CLIS[engineId];
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
