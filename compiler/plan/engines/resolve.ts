/**
 * `engine:` (a string or a map) resolved against the registry: the engine, its model and env, the secrets it
 * reads (a provider engine's from its `provider/model`), federation and Copilot's request token, with the
 * diagnostics of what the engine refuses.
 */
import type { Diagnostic } from "../../api.ts";
import { diagnostic } from "../../source/diagnostics.ts";
import { resolveEngineAuth } from "../engine_auth.ts";
import type { EngineConfig, EngineTarget } from "./facts.ts";
import { DEFAULT_TARGET } from "../../targets/mod.ts";
import { DEFAULT_ENGINE_ID, engineFor } from "./registry.ts";
import { objectOf } from "../../source/values.ts";

export type { EngineConfig } from "./facts.ts";

/** Provider prefix → secrets, for `provider/model` engines. */
export const PROVIDER_SECRETS: Record<string, string[]> = {
  copilot: ["COPILOT_GITHUB_TOKEN"],
  "github-copilot": ["COPILOT_GITHUB_TOKEN"],
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["CODEX_API_KEY", "OPENAI_API_KEY"],
  codex: ["CODEX_API_KEY", "OPENAI_API_KEY"],
};

/** Names of subscription/OAuth token secrets that are refused. */
const OAUTH_SECRETS = ["CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "CODEX_OAUTH_TOKEN"];

/** Resolves `engine:` (string or object) with diagnostics located in `file`. */
export function resolveEngine(
  raw: unknown,
  permissions: unknown,
  file: string,
  locate: (p: (string | number)[]) => [number, number],
  diags: Diagnostic[],
  target: EngineTarget = DEFAULT_TARGET,
): EngineConfig {
  const obj = objectOf(raw);
  const id = typeof raw === "string" ? raw : typeof obj.id === "string" ? obj.id : DEFAULT_ENGINE_ID;
  const info = engineFor(id, target);
  // An unknown id falls back to the default engine's steps but never to its Copilot-only credentials.
  const known = info.id === id;
  const model = typeof obj.model === "string" ? obj.model : undefined;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(objectOf(obj.env))) env[k] = String(v);
  let secrets = [...info.secrets];
  if (info.providerAuth && model && model.includes("/")) {
    const provider = model.split("/")[0];
    const s = PROVIDER_SECRETS[provider];
    if (s) secrets = [...s];
    else {
      const [line, column] = locate(["engine", "model"]);
      diags.push(
        diagnostic(
          "unsupported-provider",
          { file, line, column },
          `unsupported provider "${provider}" in model "${model}" for engine ${id}`,
          `use one of ${Object.keys(PROVIDER_SECRETS).join(", ")} as the provider prefix`,
        ),
      );
    }
  }
  for (const [k, v] of Object.entries(env)) {
    const refs = [...v.matchAll(/secrets\.([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    for (const r of refs) {
      if (OAUTH_SECRETS.includes(r)) {
        const [line, column] = locate(["engine", "env", k]);
        diags.push(
          diagnostic(
            "oauth-token-unsupported",
            { file, line, column },
            `subscription OAuth token secret ${r} is not supported for engine ${id}`,
            info.oauthHint,
          ),
        );
      }
    }
    if (/_(API_)?KEY$/.test(k) && !secrets.includes(k)) secrets.push(k);
  }
  const auth = resolveEngineAuth(obj.auth, id, file, locate, diags);
  if (auth && typeof permissions === "string" && !permissions.startsWith("write")) {
    const [line, column] = locate(["permissions"]);
    diags.push(
      diagnostic(
        "engine-auth-invalid",
        { file, line, column },
        `engine.auth needs id-token: write, which permissions: ${permissions} cannot grant`,
        "write permissions as a mapping (the agent job then gets id-token: write added)",
      ),
    );
  }
  // A federated engine reads no API-key secret: drop the engine's own (keys the author passes stay).
  if (auth) secrets = secrets.filter((s) => !info.secrets.includes(s));
  const perms = objectOf(permissions);
  const grantsCopilotRequests = perms["copilot-requests"] === "write";
  const usesCopilotRequests = known && info.copilotRequests && grantsCopilotRequests;
  if (obj["max-turns"] !== undefined && !info.supportsMaxTurns) {
    const [line, column] = locate(["engine", "max-turns"]);
    diags.push(
      diagnostic(
        "unsupported-option",
        { file, line, column },
        `engine ${id} does not support max-turns; it is ignored`,
        "use engine claude for max-turns",
      ),
    );
  }
  const command = typeof obj.command === "string" ? obj.command : undefined;
  const byok = known && info.byokEnvKey !== undefined && info.byokEnvKey in env;
  // gh-aw validates no secret when the author's command replaces the CLI, nor when Copilot talks to the
  // author's own provider (its key is whatever the author passes, often no secret at all).
  if (command !== undefined || byok) secrets = [];
  return {
    info,
    target,
    model,
    command,
    byok,
    maxTurns: obj["max-turns"] as number | string | undefined,
    maxContinuations: obj["max-continuations"] as number | string | undefined,
    env,
    secrets: usesCopilotRequests ? [] : secrets,
    usesCopilotRequests,
    grantsCopilotRequests,
    agent: typeof obj.agent === "string" ? obj.agent : undefined,
    auth,
  };
}
