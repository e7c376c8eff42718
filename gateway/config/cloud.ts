/**
 * The cloud providers of the config file (`type: bedrock`, `type: vertex`; fields in cloud_fields.ts):
 * their resolution into ProviderSettings with credentials from the environment (AWS_*) or a service-account JSON
 * key file (credentials_file, else GOOGLE_APPLICATION_CREDENTIALS). A declared cloud provider that cannot
 * work — no region, no credentials, an unreadable or malformed key file, a bad model ARN — stops start-up
 * with a problem naming the key, instead of failing on its first request.
 */
import { createPrivateKey } from "node:crypto";
import { z } from "zod";
import type { ConfigProblem, Env } from "@switchyard/lib/config.ts";
import type { GatewayFile, ProviderEntry } from "./file.ts";
import type { ProviderSettings, ServiceAccountKey, VertexAuth } from "../providers/contract.ts";
import { bedrockModelFor } from "../providers/bedrock_model.ts";
import { OPENAI_QUIRKS } from "../providers/openai.ts";
import { parseTarget } from "../target.ts";

const AWS_REGION = /^[a-z]{2,}(?:-[a-z]+)+-\d+$/;
const GOOGLE_LOCATION = /^(?:global|[a-z]+-[a-z]+\d+)$/;

/** Entry fields each cloud type refuses: they belong to other provider types. */
const FOREIGN_FIELDS: Readonly<Record<"bedrock" | "vertex", ReadonlyArray<keyof ProviderEntry>>> = {
  bedrock: [
    "preset",
    "api_key_env",
    "auth_header",
    "quirks",
    "project",
    "credentials_file",
    "access_token_env",
  ],
  vertex: ["preset", "api_key_env", "auth_header", "quirks"],
};

const serviceAccountSchema = z.object({
  type: z.literal("service_account", {
    error:
      'expected a service account key ("type": "service_account"); for other credentials use access_token_env',
  }),
  project_id: z.string().optional(),
  private_key_id: z.string().optional(),
  private_key: z.string().min(1),
  client_email: z.string().min(1),
  token_uri: z.string().refine((raw) => /^https?:\/\/[^/]/.test(raw), { error: "expected an http(s) URL" })
    .default("https://oauth2.googleapis.com/token"),
});

/** Resolution of the cloud entries: the settings of those that work, the problems of those that do not. */
export interface CloudResolution {
  /** Settings in file order. */
  providers: ProviderSettings[];
  /** One per bad key. */
  problems: ConfigProblem[];
}

/** Resolves every `bedrock` and `vertex` entry of the file. */
export function resolveCloudProviders(
  file: GatewayFile,
  env: Env,
  readFile: (path: string) => string,
): CloudResolution {
  const providers: ProviderSettings[] = [];
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of Object.entries(file.providers ?? {})) {
    if (entry.type !== "bedrock" && entry.type !== "vertex") continue;
    const key = `GATEWAY_CONFIG: providers.${name}`;
    for (const field of FOREIGN_FIELDS[entry.type]) {
      if (entry[field] !== undefined) {
        problems.push({ key: `${key}.${field}`, message: `does not apply to ${entry.type} providers` });
      }
    }
    const settings = entry.type === "bedrock"
      ? bedrockSettings(name, key, entry, env, problems)
      : vertexSettings(name, key, entry, env, readFile, problems);
    // Kept even with a problem elsewhere (a bad model) so alias and fallback checks see the provider;
    // any problem stops start-up anyway.
    if (settings) providers.push(settings);
  }
  return { providers, problems };
}

function bedrockSettings(
  name: string,
  key: string,
  entry: ProviderEntry,
  env: Env,
  problems: ConfigProblem[],
): ProviderSettings | undefined {
  const region = entry.region ?? env.AWS_REGION;
  if (!region) {
    problems.push({ key: `${key}.region`, message: "Bedrock needs a region: set region here or AWS_REGION" });
  } else if (!AWS_REGION.test(region)) {
    problems.push({
      key: entry.region ? `${key}.region` : "AWS_REGION",
      message: "expected an AWS region such as us-east-1",
    });
  }
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const missing = (variable: string) =>
    problems.push({ key: variable, message: `is required by the bedrock provider ${name}` });
  if (!accessKeyId) missing("AWS_ACCESS_KEY_ID");
  if (!secretAccessKey) missing("AWS_SECRET_ACCESS_KEY");
  (entry.models ?? []).forEach((model, i) => {
    const parsed = region ? bedrockModelFor(model, region) : undefined;
    if (typeof parsed === "string") problems.push({ key: `${key}.models.${i}`, message: parsed });
  });
  if (!region || !AWS_REGION.test(region) || !accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return {
    name,
    kind: "bedrock",
    baseUrl: (entry.base_url ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, ""),
    quirks: OPENAI_QUIRKS,
    secrets: [secretAccessKey, ...(sessionToken ? [sessionToken] : [])],
    bedrock: { region, credentials: { accessKeyId, secretAccessKey, sessionToken } },
  };
}

/** Reads and checks a service-account key file; a string is the problem. */
function readServiceAccount(
  path: string,
  readFile: (path: string) => string,
): { key: ServiceAccountKey; projectId?: string } | string {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    return `cannot read ${path}: ${(error as Error).message}`;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return `${path} is not JSON`;
  }
  const parsed = serviceAccountSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`;
  }
  try {
    // Checked now so a truncated or mangled key stops start-up rather than the first request.
    createPrivateKey({ key: parsed.data.private_key, format: "pem" });
  } catch {
    return `${path}: private_key is not a PEM private key`;
  }
  return {
    key: {
      clientEmail: parsed.data.client_email,
      privateKey: parsed.data.private_key,
      privateKeyId: parsed.data.private_key_id,
      tokenUri: parsed.data.token_uri,
    },
    projectId: parsed.data.project_id,
  };
}

function vertexSettings(
  name: string,
  key: string,
  entry: ProviderEntry,
  env: Env,
  readFile: (path: string) => string,
  problems: ConfigProblem[],
): ProviderSettings | undefined {
  if (entry.region && !GOOGLE_LOCATION.test(entry.region)) {
    problems.push({
      key: `${key}.region`,
      message: "expected a Google Cloud location such as us-east5 or global",
    });
  }
  if (!entry.region) {
    problems.push({
      key: `${key}.region`,
      message: "Vertex needs a region (a location such as us-east5, or global)",
    });
  }
  let auth: VertexAuth | undefined;
  let projectId: string | undefined;
  if (entry.access_token_env) {
    const token = env[entry.access_token_env];
    if (!token) {
      problems.push({
        key: entry.access_token_env,
        message: `is named by ${key}.access_token_env but is not set`,
      });
    } else auth = { type: "token", token };
  } else {
    const path = entry.credentials_file ?? env.GOOGLE_APPLICATION_CREDENTIALS;
    const where = entry.credentials_file ? `${key}.credentials_file` : "GOOGLE_APPLICATION_CREDENTIALS";
    if (!path) {
      problems.push({
        key: `${key}.credentials_file`,
        message:
          "Vertex needs credentials: credentials_file, GOOGLE_APPLICATION_CREDENTIALS or access_token_env",
      });
    } else {
      const account = readServiceAccount(path, readFile);
      if (typeof account === "string") problems.push({ key: where, message: account });
      else {
        auth = { type: "service_account", key: account.key };
        projectId = account.projectId;
      }
    }
  }
  const project = entry.project ?? projectId;
  if (!project && auth) {
    problems.push({
      key: `${key}.project`,
      message: "Vertex needs a project (or a key file with project_id)",
    });
  }
  if (!entry.region || !GOOGLE_LOCATION.test(entry.region) || !auth || !project) return undefined;
  const host = entry.region === "global"
    ? "https://aiplatform.googleapis.com"
    : `https://${entry.region}-aiplatform.googleapis.com`;
  return {
    name,
    kind: "vertex",
    baseUrl: (entry.base_url ?? host).replace(/\/+$/, ""),
    quirks: OPENAI_QUIRKS,
    secrets: [auth.type === "token" ? auth.token : auth.key.privateKey],
    vertex: { project, region: entry.region, auth },
  };
}

/** Problems of alias and fallback targets naming a bedrock provider with a model it cannot address. */
export function bedrockTargetProblems(
  targets: ReadonlyArray<[string, string]>,
  providers: readonly ProviderSettings[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [key, target] of targets) {
    const named = parseTarget(target);
    const provider = named && providers.find((p) => p.name === named.provider);
    if (!named || named.model === "*" || !provider?.bedrock) continue;
    const parsed = bedrockModelFor(named.model, provider.bedrock.region);
    if (typeof parsed === "string") problems.push({ key, message: parsed });
  }
  return problems;
}
