/**
 * Bedrock model identifiers: plain model ids (`anthropic.claude-sonnet-4-20250514-v1:0`), inference profile
 * ids (`us.anthropic...`, `global.anthropic...`) and ARNs (foundation models, inference profiles,
 * provisioned and imported models). Decides which API serves a model: Anthropic models recognisable from
 * their id go through InvokeModel with the native Anthropic body; everything else (including application
 * inference profiles, whose ids name no model) through Converse, which serves Claude too.
 */

/** A validated Bedrock model reference. */
export interface BedrockModel {
  /** The id as given (an ARN or a model/profile id). */
  id: string;
  /** `invoke` (native Anthropic body) or `converse`. */
  api: "invoke" | "converse";
  /** The id encoded as one URL path segment (`:` and `/` percent-encoded, as the AWS SDKs send it). */
  pathSegment: string;
  /** The region an ARN names, when `id` is an ARN. */
  arnRegion?: string;
}

const ARN = /^arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:bedrock:([a-z0-9-]+):(\d{12})?:([a-z-]+)\/(.+)$/;
const ARN_RESOURCES = new Set([
  "foundation-model",
  "inference-profile",
  "application-inference-profile",
  "provisioned-model",
  "custom-model-deployment",
  "imported-model",
]);
const MODEL_ID = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** An Anthropic model id, optionally behind a cross-region inference profile prefix (`us.`, `global.`). */
const ANTHROPIC_ID = /^(?:[a-z-]+\.)?anthropic\.claude/;

/** Parses a Bedrock model reference; a string is the reason it is not one. */
export function parseBedrockModel(id: string): BedrockModel | string {
  const pathSegment = encodeURIComponent(id);
  if (id.startsWith("arn:")) {
    const match = ARN.exec(id);
    if (!match) {
      return `${JSON.stringify(id)} is not a Bedrock ARN (expected arn:aws:bedrock:REGION:ACCOUNT:TYPE/ID)`;
    }
    const [, region, account, resource, resourceId] = match;
    if (!ARN_RESOURCES.has(resource)) {
      return `${JSON.stringify(id)} names resource type ${resource}, which Bedrock cannot invoke`;
    }
    if (resource !== "foundation-model" && !account) {
      return `${JSON.stringify(id)} lacks the 12-digit account id a ${resource} ARN needs`;
    }
    if (!RESOURCE_ID.test(resourceId)) return `${JSON.stringify(id)} has a malformed resource id`;
    const api = resource !== "application-inference-profile" && ANTHROPIC_ID.test(resourceId)
      ? "invoke"
      : "converse";
    return { id, api, pathSegment, arnRegion: region };
  }
  if (!MODEL_ID.test(id)) {
    return `${JSON.stringify(id)} is not a Bedrock model id (expected provider.model such as ` +
      `anthropic.claude-sonnet-4-20250514-v1:0, or an ARN)`;
  }
  return { id, api: ANTHROPIC_ID.test(id) ? "invoke" : "converse", pathSegment };
}

/** Like {@link parseBedrockModel}, also refusing an ARN of another region than the provider's. */
export function bedrockModelFor(id: string, region: string): BedrockModel | string {
  const model = parseBedrockModel(id);
  if (typeof model === "string") return model;
  if (model.arnRegion && model.arnRegion !== region) {
    return `${JSON.stringify(id)} is in region ${model.arnRegion}, but the provider signs for ${region}`;
  }
  return model;
}
