/**
 * RS256 signatures on a worker thread (sign_worker.ts), with the main thread signing as the fallback when no
 * worker can run (an edge isolate without Worker) or the worker fails. The worker starts on first use, so a
 * cold start pays nothing for it.
 */
import { importJWK, type JWTPayload, SignJWT } from "jose";
import type { SignReply, SignRequest } from "./sign_protocol.ts";

/** Signs `payload` with the private `jwk` under `kid`. */
export type KeySigner = (kid: string, jwk: Record<string, unknown>, payload: JWTPayload) => Promise<string>;

/** Options of {@link offThreadSigner}. */
export interface OffThreadSignerOptions {
  /** false: sign on the calling thread (tests, or a platform without workers). Default: a worker when available. */
  worker?: boolean;
  /** Told once when the worker cannot be used and signing falls back to this thread. */
  onFallback?: (reason: string) => void;
}

/** A signer that keeps RSA work off the event loop. */
export function offThreadSigner(options: OffThreadSignerOptions = {}): KeySigner & { close(): void } {
  const inThread = inThreadSigner();
  let worker: Worker | undefined;
  let broken = options.worker === false || typeof Worker === "undefined";
  const sentKeys = new Set<string>();
  const pending = new Map<number, { resolve: (jwt: string) => void; reject: (error: Error) => void }>();
  let nextId = 1;

  const fallBack = (reason: string) => {
    if (broken) return;
    broken = true;
    options.onFallback?.(reason);
    worker?.terminate();
    worker = undefined;
    for (const waiter of pending.values()) waiter.reject(new Error(`the signing thread stopped: ${reason}`));
    pending.clear();
  };

  const start = (): Worker | undefined => {
    if (worker || broken) return worker;
    try {
      worker = new Worker(new URL("./sign_worker.ts", import.meta.url), { type: "module" });
    } catch (error) {
      fallBack(error instanceof Error ? error.message : String(error));
      return undefined;
    }
    worker.onmessage = (event: MessageEvent<SignReply>) => {
      const reply = event.data;
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      if (reply.jwt !== undefined) waiter.resolve(reply.jwt);
      else waiter.reject(new Error(reply.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      fallBack(event.message);
    };
    return worker;
  };

  const signer = async (kid: string, jwk: Record<string, unknown>, payload: JWTPayload): Promise<string> => {
    const thread = start();
    if (!thread) return await inThread(kid, jwk, payload);
    const id = nextId++;
    const request: SignRequest = { id, kid, payload: payload as Record<string, unknown> };
    if (!sentKeys.has(kid)) {
      request.jwk = jwk;
      sentKeys.add(kid);
    }
    try {
      return await new Promise<string>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        thread.postMessage(request);
      });
    } catch (error) {
      // The worker stopped under this request: sign it here rather than fail the grant.
      if (broken) return await inThread(kid, jwk, payload);
      sentKeys.delete(kid); // the next request carries the key again
      throw error;
    }
  };
  return Object.assign(signer, {
    close() {
      worker?.terminate();
      worker = undefined;
      broken = true;
    },
  });
}

/** Signing on the calling thread, with each key imported once. */
function inThreadSigner(): KeySigner {
  const keys = new Map<string, Promise<Awaited<ReturnType<typeof importJWK>>>>();
  return async (kid, jwk, payload) => {
    let key = keys.get(kid);
    if (!key) {
      key = importJWK(jwk, "RS256");
      key.catch(() => keys.delete(kid));
      keys.set(kid, key);
    }
    return await new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid }).sign(await key);
  };
}
