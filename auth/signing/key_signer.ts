/**
 * Which RS256 signer the service uses: OpenSSL's libcrypto by FFI where it loads (libcrypto_signer.ts,
 * four times cheaper per signature), else the signing threads of off_thread_signer.ts. `AUTH_SIGNING_LIBCRYPTO`
 * chooses: unset or `auto` tries `libcrypto.so.3`, a path names the library, `off` never loads it.
 */
import { libcryptoSigner } from "./libcrypto_signer.ts";
import { type KeySigner, offThreadSigner } from "./off_thread_signer.ts";

/** The signer for `setting` (`AUTH_SIGNING_LIBCRYPTO`), with a note on what was chosen and why. */
export function keySignerFor(
  setting: string | undefined,
): { signer: KeySigner & { close(): void }; note: string } {
  const choice = setting?.trim() || "auto";
  if (choice !== "off") {
    const loaded = choice === "auto" ? libcryptoSigner() : libcryptoSigner(choice);
    if ("signer" in loaded) return { signer: loaded.signer, note: "ID tokens are signed by libcrypto" };
    if (choice !== "auto") {
      // A named library that does not load is a configuration error, not a silent fallback.
      throw new Error(`AUTH_SIGNING_LIBCRYPTO: ${loaded.unavailable}`);
    }
    return { signer: offThreadSigner(), note: `ID tokens are signed by WebCrypto (${loaded.unavailable})` };
  }
  return {
    signer: offThreadSigner(),
    note: "ID tokens are signed by WebCrypto (AUTH_SIGNING_LIBCRYPTO=off)",
  };
}
