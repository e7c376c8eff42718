import assert from "node:assert/strict";
import { bedrockModelFor, parseBedrockModel } from "./bedrock_model.ts";

Deno.test("Anthropic model ids and cross-region profiles go through InvokeModel", () => {
  for (
    const id of [
      "anthropic.claude-sonnet-4-20250514-v1:0",
      "us.anthropic.claude-3-5-haiku-20241022-v1:0",
      "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-3-7-sonnet-20250219-v1:0",
      "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
    ]
  ) {
    const model = parseBedrockModel(id);
    assert.ok(typeof model !== "string", `${id}: ${model}`);
    assert.equal(model.api, "invoke", id);
  }
});

Deno.test("other models and application inference profiles go through Converse", () => {
  for (
    const id of [
      "amazon.nova-pro-v1:0",
      "meta.llama3-70b-instruct-v1:0",
      "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5",
    ]
  ) {
    const model = parseBedrockModel(id);
    assert.ok(typeof model !== "string", `${id}: ${model}`);
    assert.equal(model.api, "converse", id);
  }
});

Deno.test("a model id becomes one percent-encoded path segment", () => {
  const model = parseBedrockModel(
    "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.x-v1:0",
  );
  assert.ok(typeof model !== "string");
  assert.equal(
    model.pathSegment,
    "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.x-v1%3A0",
  );
});

Deno.test("bad ARNs and ids are refused with the reason", () => {
  assert.match(String(parseBedrockModel("arn:aws:s3:::bucket/key")), /not a Bedrock ARN/);
  assert.match(
    String(parseBedrockModel("arn:aws:bedrock:us-east-1:123:inference-profile/x")),
    /not a Bedrock ARN/,
  );
  assert.match(
    String(parseBedrockModel("arn:aws:bedrock:us-east-1::inference-profile/us.anthropic.claude-x")),
    /12-digit account/,
  );
  assert.match(
    String(parseBedrockModel("arn:aws:bedrock:us-east-1:123456789012:knowledge-base/x")),
    /cannot invoke/,
  );
  assert.match(String(parseBedrockModel("claude sonnet")), /not a Bedrock model id/);
});

Deno.test("an ARN of another region than the provider's is refused", () => {
  const arn = "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-x-v1:0";
  assert.match(String(bedrockModelFor(arn, "us-east-1")), /region eu-west-1.*us-east-1/);
  assert.ok(typeof bedrockModelFor(arn, "eu-west-1") !== "string");
});
