/**
 * RS256 through the system's OpenSSL (libcrypto 3), called by FFI. Deno's WebCrypto and `node:crypto` sign
 * RSA with a pure-Rust big-number library: 1.1–1.2 ms for a 2048-bit key on the bench machine, against
 * 0.27 ms for OpenSSL's `EVP_DigestSign` on the same key (docs/auth.md, "Third pass"). On the refresh path
 * that signature was two thirds of the service's CPU per request, so the one hand-written piece of JOSE in
 * the service is this: the JWS compact serialization (`base64url(header).base64url(payload).signature`,
 * RFC 7515 §7.1) around OpenSSL's PKCS#1 v1.5 signature, which is deterministic — the tests compare it byte
 * for byte with jose's and verify every token with jose.
 *
 * The digest-and-sign call is `nonblocking`: it runs on one of Deno's blocking threads, so the event loop
 * only prepares the input. At most {@link DEFAULT_MAX_IN_FLIGHT} signatures run at once, the others wait their
 * turn in order: Deno starts a blocking thread per call, and 16 runnable signing threads on a busy machine
 * take the cores from the event loop that answers the requests (docs/auth.md, "Seventh pass"); libuv's pool,
 * where Node signs, has four. Each call has its own `EVP_MD_CTX`, made and initialised on the calling thread;
 * the shared `EVP_PKEY` is only read while signing. Where the library cannot be loaded (no libcrypto 3, no
 * `--allow-ffi`, an edge isolate) {@link libcryptoSigner} says why and the caller keeps its other signer.
 */
import { createPrivateKey } from "node:crypto";
import type { JWTPayload } from "jose";
import type { KeySigner } from "./off_thread_signer.ts";
import { base64urlEncode } from "@switchyard/lib/crypto.ts";

const SYMBOLS = {
  d2i_AutoPrivateKey: { parameters: ["pointer", "buffer", "i64"], result: "pointer" },
  EVP_PKEY_free: { parameters: ["pointer"], result: "void" },
  EVP_PKEY_get_size: { parameters: ["pointer"], result: "i32" },
  EVP_PKEY_get_base_id: { parameters: ["pointer"], result: "i32" },
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_sha256: { parameters: [], result: "pointer" },
  EVP_DigestSignInit: { parameters: ["pointer", "pointer", "pointer", "pointer", "pointer"], result: "i32" },
  EVP_DigestSign: {
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
    nonblocking: true,
  },
  ERR_clear_error: { parameters: [], result: "void" },
} as const;

/** `EVP_PKEY_RSA` (NID_rsaEncryption). */
const EVP_PKEY_RSA = 6;
/** The library's name on Debian/Ubuntu (libssl3) and most Linux distributions. */
const DEFAULT_LIBRARY = "libcrypto.so.3";
const encoder = new TextEncoder();
/** Signatures running at once on blocking threads (the others queue). */
export const DEFAULT_MAX_IN_FLIGHT = 4;

type Library = Deno.DynamicLibrary<typeof SYMBOLS>;

interface LoadedKey {
  pkey: Deno.PointerObject;
  size: number;
  header: string;
}

/** The signer, or why libcrypto cannot be used here. */
export type LibcryptoSignerResult = { signer: KeySigner & { close(): void } } | { unavailable: string };

/**
 * Loads libcrypto (`path`, default `libcrypto.so.3`) and returns an RS256 signer on it that runs at most
 * `maxInFlight` signatures at once.
 */
export function libcryptoSigner(
  path = DEFAULT_LIBRARY,
  { maxInFlight = DEFAULT_MAX_IN_FLIGHT }: { maxInFlight?: number } = {},
): LibcryptoSignerResult {
  // Fewer than one at a time would queue every signature for ever.
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) {
    throw new RangeError(`maxInFlight must be a whole number of at least 1, not ${maxInFlight}`);
  }
  let lib: Library;
  try {
    lib = Deno.dlopen(path, SYMBOLS);
  } catch (error) {
    return { unavailable: `${path} could not be loaded: ${error instanceof Error ? error.message : error}` };
  }
  const sha256 = lib.symbols.EVP_sha256();
  if (!sha256) {
    lib.close();
    return { unavailable: `${path} has no SHA-256 digest` };
  }
  const keys = new Map<string, LoadedKey>();
  let closed = false;
  let inFlight = 0;
  let release: (() => void) | undefined;
  /** Signatures on blocking threads now, and the turns of those waiting (first come, first served). */
  let signing = 0;
  const waiting: (() => void)[] = [];
  const takeTurn = (): Promise<void> | undefined => {
    if (signing < maxInFlight) {
      signing++;
      return undefined;
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  const passTurn = () => {
    const next = waiting.shift();
    if (next) next(); // the turn goes on: `signing` stays the same
    else signing--;
  };

  const load = (kid: string, jwk: Record<string, unknown>): LoadedKey => {
    const known = keys.get(kid);
    if (known) return known;
    let der: Uint8Array;
    try {
      // node:crypto checks the JWK and writes the PKCS#1 DER OpenSSL reads.
      der = new Uint8Array(
        createPrivateKey({ key: jwk as never, format: "jwk" }).export({ type: "pkcs1", format: "der" }),
      );
    } catch {
      // Never the key's material in the message.
      throw new Error(`signing key ${kid} is not a usable RSA private key`);
    }
    const cursor = new BigUint64Array([BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(der)))]);
    const pkey = lib.symbols.d2i_AutoPrivateKey(null, cursor, BigInt(der.length));
    der.fill(0);
    if (!pkey || lib.symbols.EVP_PKEY_get_base_id(pkey) !== EVP_PKEY_RSA) {
      if (pkey) lib.symbols.EVP_PKEY_free(pkey);
      lib.symbols.ERR_clear_error();
      throw new Error(`signing key ${kid} is not a usable RSA private key`);
    }
    const loaded = {
      pkey,
      size: lib.symbols.EVP_PKEY_get_size(pkey),
      header: base64urlEncode(JSON.stringify({ alg: "RS256", kid })),
    };
    keys.set(kid, loaded);
    return loaded;
  };

  const freeAll = () => {
    for (const key of keys.values()) lib.symbols.EVP_PKEY_free(key.pkey);
    keys.clear();
    lib.close();
  };

  const signer = async (kid: string, jwk: Record<string, unknown>, payload: JWTPayload): Promise<string> => {
    if (closed) throw new Error("the libcrypto signer is closed");
    const key = load(kid, jwk);
    const input = `${key.header}.${base64urlEncode(JSON.stringify(payload))}`;
    const data = encoder.encode(input);
    const signature = new Uint8Array(key.size);
    const length = new BigUint64Array([BigInt(key.size)]);
    inFlight++;
    const turn = takeTurn();
    if (turn) await turn;
    const ctx = lib.symbols.EVP_MD_CTX_new();
    try {
      if (!ctx) throw new Error("libcrypto could not allocate a digest context");
      if (lib.symbols.EVP_DigestSignInit(ctx, null, sha256, null, key.pkey) !== 1) {
        throw new Error("libcrypto could not start an RS256 signature");
      }
      // The buffers stay referenced by this frame until the blocking thread has answered.
      const ok = await lib.symbols.EVP_DigestSign(
        ctx,
        signature,
        new Uint8Array(length.buffer),
        data,
        BigInt(data.length),
      );
      if (ok !== 1) throw new Error("libcrypto could not sign the token");
      return `${input}.${base64urlEncode(signature.subarray(0, Number(length[0])))}`;
    } catch (error) {
      lib.symbols.ERR_clear_error();
      throw error;
    } finally {
      if (ctx) lib.symbols.EVP_MD_CTX_free(ctx);
      passTurn();
      inFlight--;
      if (closed && inFlight === 0 && release) {
        release();
        release = undefined;
      }
    }
  };

  return {
    signer: Object.assign(signer, {
      close() {
        if (closed) return;
        closed = true;
        // Keys are freed once no signature still reads them.
        if (inFlight === 0) freeAll();
        else release = freeAll;
      },
    }),
  };
}
