/**
 * SigV4 for Bedrock Runtime (signing name `bedrock`) with aws4fetch's signer: the headers to send with one
 * request, signed over its method, path (each segment encoded again, as SigV4 wants for every service
 * but S3), host, `x-amz-date`, `x-amz-security-token` and the SHA-256 of the exact body bytes sent.
 */
import { AwsV4Signer } from "aws4fetch";
import type { AwsCredentials } from "./contract.ts";

/** SigV4 signing name of Bedrock Runtime (its host is `bedrock-runtime`, its signing name is not). */
export const BEDROCK_SIGNING_NAME = "bedrock";

/** Derived signing keys per day, shared by every request (the signer derives four HMACs otherwise). */
const keyCache = new Map<string, ArrayBuffer>();

/** Signs a POST of `body` to `url`; returns every header to send (content-type and accept included). */
export async function signBedrockRequest(
  credentials: AwsCredentials,
  region: string,
  url: string,
  body: string,
  accept: string,
  now: Date = new Date(),
): Promise<Record<string, string>> {
  const signer = new AwsV4Signer({
    method: "POST",
    url,
    headers: { "content-type": "application/json", accept },
    body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
    service: BEDROCK_SIGNING_NAME,
    region,
    cache: keyCache,
    datetime: now.toISOString().replace(/[:-]|\.\d{3}/g, ""),
  });
  const signed = await signer.sign();
  return Object.fromEntries(signed.headers);
}
