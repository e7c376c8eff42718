/**
 * A signing thread of off_thread_signer.ts: holds the imported private keys and answers RS256 signatures
 * with jose over WebCrypto, so the jose work around each signature leaves the main thread.
 */
/// <reference lib="deno.worker" />
import { importJWK, type JWK, type JWTPayload, SignJWT } from "jose";
import type { SignReply, SignRequest } from "./sign_protocol.ts";

const keys = new Map<string, Promise<Awaited<ReturnType<typeof importJWK>>>>();

self.onmessage = async (event: MessageEvent<SignRequest>) => {
  const request = event.data;
  let reply: SignReply;
  try {
    let key = keys.get(request.kid);
    if (!key) {
      if (!request.jwk) throw new Error(`signing key ${request.kid} is not known to the signing thread`);
      key = importJWK(request.jwk as JWK, "RS256");
      key.catch(() => keys.delete(request.kid));
      keys.set(request.kid, key);
    }
    const jwt = await new SignJWT(request.payload as JWTPayload)
      .setProtectedHeader({ alg: "RS256", kid: request.kid })
      .sign(await key);
    reply = { id: request.id, jwt };
  } catch (error) {
    // Only the message: a key's material never leaves this thread in an error.
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
