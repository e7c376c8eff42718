/**
 * `engine.auth`: workload identity federation instead of an API-key secret (spec C.2, C.3), written as
 * later gh-aw writes it. The job's GitHub OIDC token is exchanged for a short-lived provider token by the
 * AWF API proxy (the sidecar that already holds API keys), so the federation parameters travel to the
 * firewall step as `AWF_AUTH_*` variables and no credential ever enters the agent's container.
 */
import type { Diagnostic } from "../api.ts";
import { diagnostic } from "../source/diagnostics.ts";
import { isMapping } from "../source/values.ts";

/** The only `engine.auth.type` there is: the job's GitHub Actions OIDC token. */
export const AUTH_TYPE = "github-oidc";

/** One federation parameter: its frontmatter key, the env variable it becomes, and whether it is required. */
interface AuthField {
  key: string;
  env: string;
  required: boolean;
}

/** One provider's federation: the engine using it and its parameters (gh-aw's names). */
interface AuthProvider {
  engine: string;
  fields: AuthField[];
}

/**
 * Anthropic federates by rule, organization and service account (the token exchange needs all three; a
 * workspace is needed only when the rule spans several); Google by workload identity provider, service
 * account and the Vertex AI project (the location defaults on Google's side).
 */
const PROVIDERS: Record<string, AuthProvider> = {
  anthropic: {
    engine: "claude",
    fields: [
      { key: "federation-rule-id", env: "AWF_AUTH_ANTHROPIC_FEDERATION_RULE_ID", required: true },
      { key: "organization-id", env: "AWF_AUTH_ANTHROPIC_ORGANIZATION_ID", required: true },
      { key: "service-account-id", env: "AWF_AUTH_ANTHROPIC_SERVICE_ACCOUNT_ID", required: true },
      { key: "workspace-id", env: "AWF_AUTH_ANTHROPIC_WORKSPACE_ID", required: false },
    ],
  },
  gcp: {
    engine: "gemini",
    fields: [
      { key: "workload-identity-provider", env: "AWF_AUTH_GCP_WORKLOAD_IDENTITY_PROVIDER", required: true },
      { key: "service-account", env: "AWF_AUTH_GCP_SERVICE_ACCOUNT", required: true },
      { key: "project", env: "GOOGLE_CLOUD_PROJECT", required: true },
      { key: "location", env: "GOOGLE_CLOUD_LOCATION", required: false },
    ],
  },
};

/** A validated `engine.auth`: the provider and its parameters (values as written, expressions allowed). */
export interface EngineAuth {
  provider: string;
  params: Record<string, string>;
}

/** The federation provider of an engine, if it has one. */
function providerOf(engineId: string): string | undefined {
  return Object.keys(PROVIDERS).find((p) => PROVIDERS[p].engine === engineId);
}

/**
 * Reads `engine.auth` of engine `engineId`; every problem is a located `engine-auth-invalid` error (no
 * WIF for the engine, a type other than github-oidc, a provider not the engine's, missing or non-text
 * parameters, unknown keys). Returns undefined when absent or invalid.
 */
export function resolveEngineAuth(
  raw: unknown,
  engineId: string,
  file: string,
  locate: (p: (string | number)[]) => [number, number],
  diags: Diagnostic[],
): EngineAuth | undefined {
  if (raw === undefined) return undefined;
  const report = (path: (string | number)[], message: string, hint: string) => {
    const [line, column] = locate(["engine", "auth", ...path]);
    diags.push(diagnostic("engine-auth-invalid", { file, line, column }, message, hint));
  };
  const own = providerOf(engineId);
  const engines = Object.values(PROVIDERS).map((p) => p.engine).join(" and ");
  if (!own) {
    report(
      [],
      `engine ${engineId} has no workload identity federation`,
      `engine.auth is for ${engines}; use the engine's API-key secret`,
    );
    return undefined;
  }
  if (!isMapping(raw)) {
    report([], "engine.auth must be a mapping", `write auth: {type: ${AUTH_TYPE}, provider: ${own}, …}`);
    return undefined;
  }
  const obj = raw;
  if (obj.type !== AUTH_TYPE) {
    report(
      obj.type === undefined ? [] : ["type"],
      `engine.auth.type must be ${AUTH_TYPE}, got ${JSON.stringify(obj.type ?? null)}`,
      `set type: ${AUTH_TYPE} (the job's GitHub Actions OIDC token)`,
    );
    return undefined;
  }
  if (obj.provider !== undefined && obj.provider !== own) {
    report(
      ["provider"],
      `engine ${engineId} federates with provider ${own}, not ${JSON.stringify(obj.provider)}`,
      `set provider: ${own} or leave it out`,
    );
    return undefined;
  }
  const fields = PROVIDERS[own].fields;
  const known = new Set(["type", "provider", ...fields.map((f) => f.key)]);
  let ok = true;
  for (const key of Object.keys(obj).filter((k) => !known.has(k))) {
    report(
      [key],
      `unknown engine.auth key ${key} for provider ${own}`,
      `the keys are ${[...known].join(", ")}`,
    );
    ok = false;
  }
  const params: Record<string, string> = {};
  const missing: string[] = [];
  for (const f of fields) {
    const v = obj[f.key];
    if (v === undefined || v === "") {
      if (f.required) missing.push(f.key);
    } else if (typeof v !== "string") {
      report([f.key], `engine.auth.${f.key} must be text, got ${typeof v}`, "quote the value");
      ok = false;
    } else params[f.key] = v;
  }
  if (missing.length) {
    report(
      [],
      `engine.auth (provider ${own}) is missing ${missing.join(", ")}`,
      `add ${missing.map((k) => `${k}: …`).join(", ")}`,
    );
    ok = false;
  }
  return ok ? { provider: own, params } : undefined;
}

/** The environment of the firewall step that makes its API proxy exchange the OIDC token. */
export function engineAuthEnv(auth: EngineAuth): Record<string, string> {
  const env: Record<string, string> = { AWF_AUTH_TYPE: AUTH_TYPE, AWF_AUTH_PROVIDER: auth.provider };
  // Gemini CLI speaks Vertex AI (not the API-key endpoint) once Google credentials are federated.
  if (auth.provider === "gcp") env.GOOGLE_GENAI_USE_VERTEXAI = "true";
  for (const f of PROVIDERS[auth.provider].fields) {
    if (auth.params[f.key] !== undefined) env[f.env] = auth.params[f.key];
  }
  return env;
}

/**
 * The runner's OIDC request variables: `--env-all` would hand them to the agent, which could then mint
 * tokens of its own; only the API proxy needs them.
 */
export const OIDC_REQUEST_ENV = ["ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL"];
