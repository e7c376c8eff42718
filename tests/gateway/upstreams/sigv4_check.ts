/**
 * Server-side SigV4 verification for the Bedrock stand-in, written from the AWS specification with
 * node:crypto and independent of the client's signer: it rebuilds the canonical request from what arrived
 * on the wire (method, raw path, query, the signed headers' values, the body's SHA-256), derives the
 * signing key and compares signatures, so a wrong canonical form, scope, key or body hash fails.
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** What the verifier expects of every request. */
export interface SigV4Expectation {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** RFC 3986 encoding of every byte but the unreserved characters, as SigV4 specifies. */
function uriEncode(text: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

const sha256 = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/** Checks one request; returns the problem (AWS's error code and message) or undefined when valid. */
export function verifySigV4(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body: string,
  expect: SigV4Expectation,
  now = Date.now(),
): { code: string; message: string } | undefined {
  const match = AUTH.exec(headers["authorization"] ?? "");
  if (!match) return { code: "IncompleteSignatureException", message: "Authorization header is malformed" };
  const [, keyId, date, region, service, signedHeaders, signature] = match;
  if (keyId !== expect.accessKeyId) {
    return {
      code: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  const amzDate = headers["x-amz-date"] ?? "";
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== date) {
    return {
      code: "IncompleteSignatureException",
      message: "x-amz-date is missing or disagrees with the scope",
    };
  }
  const at = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(now - at) > 5 * 60_000) {
    return { code: "InvalidSignatureException", message: "Signature expired" };
  }
  if (region !== expect.region || service !== expect.service) {
    return {
      code: "InvalidSignatureException",
      message: `Credential should be scoped to ${expect.region}/${expect.service}`,
    };
  }
  const names = signedHeaders.split(";");
  for (const required of ["host", "x-amz-date", ...(expect.sessionToken ? ["x-amz-security-token"] : [])]) {
    if (!names.includes(required)) {
      return { code: "InvalidSignatureException", message: `${required} is not signed` };
    }
  }
  if (expect.sessionToken && headers["x-amz-security-token"] !== expect.sessionToken) {
    return {
      code: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  const [path, query = ""] = pathAndQuery.split("?", 2);
  // Every service but S3 encodes each (already encoded) path segment once more.
  const canonicalPath = path.split("/").map(uriEncode).join("/");
  const canonicalQuery = query
    ? query.split("&").map((pair) =>
      pair.split("=", 2).map((p) => uriEncode(decodeURIComponent(p))).join("=")
    )
      .sort().join("&")
    : "";
  const canonicalHeaders = names.map((name) =>
    `${name}:${(headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`
  )
    .join("");
  const canonical = [method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, sha256(body)]
    .join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${expect.secretAccessKey}`, date), region), service), "aws4_request");
  const expected = createHmac("sha256", key).update(toSign, "utf8").digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) {
    return {
      code: "InvalidSignatureException",
      message: "The request signature we calculated does not match the signature you provided.",
    };
  }
  return undefined;
}
