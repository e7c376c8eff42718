/**
 * RS256 signatures on worker threads (sign_worker.ts), with the main thread signing as the fallback when no
 * worker can run (an edge isolate without Worker) or a worker fails. The signer where libcrypto cannot be
 * loaded (key_signer.ts). Deno 2.9's WebCrypto does the RSA arithmetic (1.1–1.2 ms a 2048-bit token) on a
 * blocking thread with 10–40 µs on the caller's; the jose work around it stays on the caller, and in the
 * refresh bench the pool still answered a little more than signing in the main isolate (docs/auth.md): one
 * thread per processor (at most 4), each request to the thread with the fewest signatures pending. Threads
 * start on first use, so a cold start pays nothing.
 */
import { importJWK, type JWTPayload, SignJWT } from "jose";
import type { SignReply, SignRequest } from "./sign_protocol.ts";

/** Signs `payload` with the private `jwk` under `kid`. */
export type KeySigner = (kid: string, jwk: Record<string, unknown>, payload: JWTPayload) => Promise<string>;

/** Options of {@link offThreadSigner}. */
export interface OffThreadSignerOptions {
  /** false: sign on the calling thread (tests, or a platform without workers). Default: workers when available. */
  worker?: boolean;
  /** Signing threads (default: the processors, 1 to 4). */
  threads?: number;
  /** Told once when the workers cannot be used and signing falls back to this thread. */
  onFallback?: (reason: string) => void;
}

interface Waiter {
  resolve: (jwt: string) => void;
  reject: (error: Error) => void;
}

/** One signing thread and what it has been sent. */
interface Thread {
  worker: Worker;
  sentKeys: Set<string>;
  pending: Map<number, Waiter>;
}

/** A signer that keeps RSA work off the event loop. */
export function offThreadSigner(options: OffThreadSignerOptions = {}): KeySigner & { close(): void } {
  const inThread = inThreadSigner();
  const size = Math.max(1, Math.min(4, options.threads ?? navigator.hardwareConcurrency ?? 1));
  const threads: Thread[] = [];
  let broken = options.worker === false || typeof Worker === "undefined";
  let nextId = 1;

  const fallBack = (reason: string) => {
    if (broken) return;
    broken = true;
    options.onFallback?.(reason);
    for (const thread of threads.splice(0)) {
      thread.worker.terminate();
      for (const waiter of thread.pending.values()) {
        waiter.reject(new Error(`the signing thread stopped: ${reason}`));
      }
    }
  };

  const spawn = (): Thread | undefined => {
    let worker: Worker;
    try {
      worker = new Worker(new URL("./sign_worker.ts", import.meta.url), { type: "module" });
    } catch (error) {
      fallBack(error instanceof Error ? error.message : String(error));
      return undefined;
    }
    const thread: Thread = { worker, sentKeys: new Set(), pending: new Map() };
    worker.onmessage = (event: MessageEvent<SignReply>) => {
      const reply = event.data;
      const waiter = thread.pending.get(reply.id);
      if (!waiter) return;
      thread.pending.delete(reply.id);
      if (reply.jwt !== undefined) waiter.resolve(reply.jwt);
      else waiter.reject(new Error(reply.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      fallBack(event.message);
    };
    threads.push(thread);
    return thread;
  };

  /** The least busy thread; a new one while the pool is not full and every thread has work. */
  const pick = (): Thread | undefined => {
    if (broken) return undefined;
    let best: Thread | undefined;
    for (const thread of threads) if (!best || thread.pending.size < best.pending.size) best = thread;
    if (!best || (best.pending.size > 0 && threads.length < size)) return spawn() ?? best;
    return best;
  };

  const signer = async (kid: string, jwk: Record<string, unknown>, payload: JWTPayload): Promise<string> => {
    const thread = pick();
    if (!thread) return await inThread(kid, jwk, payload);
    const id = nextId++;
    const request: SignRequest = { id, kid, payload: payload as Record<string, unknown> };
    if (!thread.sentKeys.has(kid)) {
      request.jwk = jwk;
      thread.sentKeys.add(kid);
    }
    try {
      return await new Promise<string>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage(request);
      });
    } catch (error) {
      // The workers stopped under this request: sign it here rather than fail the grant.
      if (broken) return await inThread(kid, jwk, payload);
      thread.sentKeys.delete(kid); // the next request to this thread carries the key again
      throw error;
    }
  };
  return Object.assign(signer, {
    close() {
      broken = true;
      for (const thread of threads.splice(0)) thread.worker.terminate();
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
