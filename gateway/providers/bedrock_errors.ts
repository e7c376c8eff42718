/**
 * Bedrock's failures in Anthropic's terms: the exception names of its event streams (and of its HTTP
 * errors' `x-amzn-errortype`) mapped onto error types, and 401/403 answers claimed as the gateway's own
 * credential problem (a wrong signature, an expired session token, a missing model permission).
 */
import type { AnthropicErrorType } from "../errors.ts";
import type { GatewayError } from "../errors.ts";
import type { UpstreamResponse } from "../upstream/response.ts";
import { credentialsRefused } from "./http.ts";

const EXCEPTION_TYPES: Readonly<Record<string, AnthropicErrorType>> = {
  throttlingException: "rate_limit_error",
  serviceUnavailableException: "overloaded_error",
  modelNotReadyException: "overloaded_error",
  validationException: "invalid_request_error",
  modelTimeoutException: "timeout_error",
  internalServerException: "api_error",
  modelStreamErrorException: "api_error",
  modelErrorException: "api_error",
};

/** The Anthropic error type of a Bedrock exception name (either capitalisation). */
export function errorTypeOfException(name: string): AnthropicErrorType {
  const key = name.charAt(0).toLowerCase() + name.slice(1);
  return EXCEPTION_TYPES[key] ?? "api_error";
}

/** Claims a 401/403 Bedrock answer as a credential refusal (502 api_error), naming the AWS error code. */
export function bedrockRefusal(provider: string): (response: UpstreamResponse) => GatewayError | undefined {
  return (response) => {
    if (response.status !== 401 && response.status !== 403) return undefined;
    const code = (response.header?.("x-amzn-errortype") ?? response.headers.get("x-amzn-errortype") ?? "")
      .split(":")[0];
    return credentialsRefused(provider, response.status, code || undefined);
  };
}
