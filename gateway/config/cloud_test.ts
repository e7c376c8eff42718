import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { ConfigError } from "@switchyard/lib/config.ts";
import { readGatewayConfig } from "./mod.ts";

const AWS_ENV = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret-access-key-example" };
const PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
})
  .toString();
const serviceAccount = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "service_account",
    project_id: "proj-from-key",
    private_key: PEM,
    client_email: "sa@proj-from-key.iam.gserviceaccount.com",
    token_uri: "https://oauth2.googleapis.com/token",
    ...overrides,
  });

function problemsOf(env: Record<string, string>, files: Record<string, string>): Map<string, string> {
  try {
    readGatewayConfig({ GATEWAY_CONFIG: "gw.yaml", ...env }, (path) => {
      if (!(path in files)) throw new Deno.errors.NotFound(`no such file ${path}`);
      return files[path];
    });
  } catch (error) {
    if (error instanceof ConfigError) return new Map(error.problems.map((p) => [p.key, p.message]));
    throw error;
  }
  return new Map();
}

Deno.test("a bedrock provider signs for its region, or AWS_REGION, at the regional endpoint", () => {
  const yaml = "providers:\n  aws: { type: bedrock }\n  aws-eu: { type: bedrock, region: eu-west-1 }\n";
  const config = readGatewayConfig(
    {
      GATEWAY_CONFIG: "gw.yaml",
      AWS_REGION: "us-east-1",
      AWS_SESSION_TOKEN: "session-token-example",
      ...AWS_ENV,
    },
    () => yaml,
  );
  const [aws, eu] = config.providers;
  assert.equal(aws.baseUrl, "https://bedrock-runtime.us-east-1.amazonaws.com");
  assert.equal(eu.baseUrl, "https://bedrock-runtime.eu-west-1.amazonaws.com");
  assert.equal(eu.bedrock?.region, "eu-west-1");
  assert.equal(aws.bedrock?.credentials.sessionToken, "session-token-example");
  assert.deepEqual(aws.secrets, ["secret-access-key-example", "session-token-example"]);
});

Deno.test("a bedrock provider without region or credentials stops start-up naming each key", () => {
  const problems = problemsOf({}, { "gw.yaml": "providers:\n  aws: { type: bedrock }\n" });
  assert.match(problems.get("GATEWAY_CONFIG: providers.aws.region") ?? "", /region here or AWS_REGION/);
  assert.match(problems.get("AWS_ACCESS_KEY_ID") ?? "", /required by the bedrock provider aws/);
  assert.ok(problems.has("AWS_SECRET_ACCESS_KEY"));
});

Deno.test("bad Bedrock ARNs in models, aliases and fallbacks stop start-up naming where they are", () => {
  const yaml = `
providers:
  aws: { type: bedrock, region: us-east-1, models: ["arn:aws:bedrock:us-east-1:12:inference-profile/x"] }
aliases:
  eu: aws/arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-x-v1:0
fallbacks:
  aws/anthropic.claude-x-v1:0: ["aws/not a model"]
`;
  const problems = problemsOf(AWS_ENV, { "gw.yaml": yaml });
  assert.match(problems.get("GATEWAY_CONFIG: providers.aws.models.0") ?? "", /not a Bedrock ARN/);
  assert.match(problems.get("GATEWAY_CONFIG: aliases.eu") ?? "", /region eu-west-1.*us-east-1/);
  assert.match(
    problems.get("GATEWAY_CONFIG: fallbacks.aws/anthropic.claude-x-v1:0.0") ?? "",
    /not a Bedrock model id/,
  );
});

Deno.test("a vertex provider takes its project from the key file and its host from the region", () => {
  const yaml = `
providers:
  gcp: { type: vertex, region: us-east5 }
  gcp-global: { type: vertex, region: global, project: other-project, credentials_file: sa2.json }
`;
  const config = readGatewayConfig(
    { GATEWAY_CONFIG: "gw.yaml", GOOGLE_APPLICATION_CREDENTIALS: "sa.json" },
    (path) => path === "gw.yaml" ? yaml : serviceAccount(),
  );
  const [regional, global] = config.providers;
  assert.equal(regional.baseUrl, "https://us-east5-aiplatform.googleapis.com");
  assert.equal(regional.vertex?.project, "proj-from-key");
  assert.equal(global.baseUrl, "https://aiplatform.googleapis.com");
  assert.equal(global.vertex?.project, "other-project");
  assert.equal(global.vertex?.auth.type, "service_account");
  assert.deepEqual(global.secrets, [PEM]);
});

Deno.test("unreadable or malformed service-account files stop start-up naming the key", () => {
  const yaml = `
providers:
  missing: { type: vertex, region: us-east5, credentials_file: nowhere.json }
  mangled: { type: vertex, region: us-east5, credentials_file: mangled.json }
  user: { type: vertex, region: us-east5, credentials_file: user.json }
  none: { type: vertex, region: us-east5 }
  noregion: { type: vertex, access_token_env: UNSET_TOKEN, project: some-project }
`;
  const problems = problemsOf({}, {
    "gw.yaml": yaml,
    "mangled.json": serviceAccount({
      private_key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    }),
    "user.json": JSON.stringify({ type: "authorized_user", refresh_token: "x" }),
  });
  assert.match(
    problems.get("GATEWAY_CONFIG: providers.missing.credentials_file") ?? "",
    /cannot read nowhere\.json/,
  );
  assert.match(
    problems.get("GATEWAY_CONFIG: providers.mangled.credentials_file") ?? "",
    /not a PEM private key/,
  );
  assert.match(problems.get("GATEWAY_CONFIG: providers.user.credentials_file") ?? "", /access_token_env/);
  assert.match(
    problems.get("GATEWAY_CONFIG: providers.none.credentials_file") ?? "",
    /GOOGLE_APPLICATION_CREDENTIALS/,
  );
  assert.ok(problems.has("GATEWAY_CONFIG: providers.noregion.region"));
  assert.match(problems.get("UNSET_TOKEN") ?? "", /access_token_env but is not set/);
  for (const message of problems.values()) {
    assert.ok(!message.includes("AAAA"), "no key material in messages");
  }
});

Deno.test("an unknown provider type is refused listing the types there are", () => {
  const problems = problemsOf({}, { "gw.yaml": "providers:\n  x: { type: azure }\n" });
  assert.match(problems.get("GATEWAY_CONFIG: providers.x.type") ?? "", /"bedrock", "vertex"/);
});

Deno.test("fields of one provider type on another are refused naming the field", () => {
  const yaml = `
providers:
  aws: { type: bedrock, region: us-east-1, api_key_env: AWS_KEY, project: my-project }
  gcp: { type: vertex, region: global, access_token_env: TOKEN, preset: groq }
  groq: { type: openai-compatible, base_url: "https://api.groq.com/openai/v1", region: us-east-1 }
`;
  const problems = problemsOf({ ...AWS_ENV, TOKEN: "ya29.token-for-tests" }, { "gw.yaml": yaml });
  assert.match(problems.get("GATEWAY_CONFIG: providers.aws.api_key_env") ?? "", /does not apply to bedrock/);
  assert.match(problems.get("GATEWAY_CONFIG: providers.aws.project") ?? "", /does not apply to bedrock/);
  assert.match(problems.get("GATEWAY_CONFIG: providers.gcp.preset") ?? "", /does not apply to vertex/);
  assert.match(
    problems.get("GATEWAY_CONFIG: providers.groq.region") ?? "",
    /bedrock and vertex providers only/,
  );
});

Deno.test("a region of the wrong cloud's shape is refused naming it", () => {
  const yaml =
    "providers:\n  aws: { type: bedrock, region: global }\n  gcp: { type: vertex, region: us-east-1 }\n";
  const problems = problemsOf({ ...AWS_ENV, GOOGLE_APPLICATION_CREDENTIALS: "sa.json" }, {
    "gw.yaml": yaml,
    "sa.json": serviceAccount(),
  });
  assert.match(problems.get("GATEWAY_CONFIG: providers.aws.region") ?? "", /AWS region/);
  assert.match(problems.get("GATEWAY_CONFIG: providers.gcp.region") ?? "", /Google Cloud location/);
});
