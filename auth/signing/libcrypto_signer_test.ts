import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose";
import { libcryptoSigner } from "./libcrypto_signer.ts";
import { keySignerFor } from "./key_signer.ts";

const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
const jwk = await exportJWK(privateKey) as Record<string, unknown>;

function open() {
  const loaded = libcryptoSigner();
  if (!("signer" in loaded)) throw new Error(`libcrypto is required by this test: ${loaded.unavailable}`);
  return loaded.signer;
}

Deno.test("libcrypto signs the same RS256 token as jose, byte for byte, and jose verifies it", async () => {
  const sign = open();
  try {
    const payload = { sub: "user-1", name: "Ünïcode Name", iat: 1_700_000_000, exp: 1_700_036_000, aud: "c" };
    const ours = await sign("k1", jwk, payload);
    const theirs = await new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "k1" }).sign(
      privateKey,
    );
    assert.equal(ours, theirs);
    const { payload: verified, protectedHeader } = await jwtVerify(ours, publicKey, {
      currentDate: new Date(1_700_000_100_000),
    });
    assert.equal(verified.name, "Ünïcode Name");
    assert.deepEqual(protectedHeader, { alg: "RS256", kid: "k1" });
  } finally {
    sign.close();
  }
});

Deno.test("hundreds of concurrent signatures each carry their own payload", async () => {
  const sign = open();
  try {
    const tokens = await Promise.all(
      Array.from({ length: 300 }, (_, i) => sign("k1", jwk, { sub: `user-${i}` })),
    );
    for (const [i, token] of tokens.entries()) {
      assert.equal((await jwtVerify(token, publicKey)).payload.sub, `user-${i}`);
    }
  } finally {
    sign.close();
  }
});

Deno.test("signatures beyond maxInFlight wait their turn in order, and every one is made", async () => {
  const loaded = libcryptoSigner(undefined, { maxInFlight: 1 });
  if (!("signer" in loaded)) throw new Error(`libcrypto is required by this test: ${loaded.unavailable}`);
  const sign = loaded.signer;
  try {
    const finished: number[] = [];
    const tokens = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        sign("k1", jwk, { sub: `queued-${i}` }).then((token) => {
          finished.push(i);
          return token;
        })),
    );
    // One at a time, first come first served: they end in the order they were asked for.
    assert.deepEqual(finished, Array.from({ length: 24 }, (_, i) => i));
    for (const [i, token] of tokens.entries()) {
      assert.equal((await jwtVerify(token, publicKey)).payload.sub, `queued-${i}`);
    }
    // A refused key gives its turn back: the queue does not stall.
    await assert.rejects(sign("bad", {}, { sub: "x" }), /not a usable RSA private key/);
    assert.equal((await jwtVerify(await sign("k1", jwk, { sub: "after" }), publicKey)).payload.sub, "after");
  } finally {
    sign.close();
  }
});

Deno.test("a 4096-bit key and two kids side by side", async () => {
  const big = await generateKeyPair("RS256", { extractable: true, modulusLength: 4096 });
  const bigJwk = await exportJWK(big.privateKey) as Record<string, unknown>;
  const sign = open();
  try {
    const [a, b] = await Promise.all([sign("big", bigJwk, { sub: "a" }), sign("k1", jwk, { sub: "b" })]);
    assert.equal((await jwtVerify(a, big.publicKey)).protectedHeader.kid, "big");
    assert.equal((await jwtVerify(b, publicKey)).protectedHeader.kid, "k1");
    await assert.rejects(jwtVerify(a, publicKey), "a token verifies only against its own key");
  } finally {
    sign.close();
  }
});

Deno.test("a key that is not an RSA private key is refused without its material; the signer keeps working", async () => {
  const sign = open();
  try {
    const publicOnly = await exportJWK(publicKey) as Record<string, unknown>;
    const ec = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
    for (const bad of [{ ...jwk, n: "AA" }, publicOnly, ec as Record<string, unknown>, {}]) {
      await assert.rejects(sign("bad", bad, { sub: "u" }), (error: Error) => {
        assert.match(error.message, /signing key bad is not a usable RSA private key/);
        assert.doesNotMatch(error.message, new RegExp(String(jwk.d).slice(0, 16)));
        return true;
      });
    }
    assert.equal((await jwtVerify(await sign("k1", jwk, { sub: "v" }), publicKey)).payload.sub, "v");
  } finally {
    sign.close();
  }
});

Deno.test("close waits for signatures under way; later calls are refused", async () => {
  const sign = open();
  const pending = Array.from({ length: 20 }, (_, i) => sign("k1", jwk, { sub: `p${i}` }));
  sign.close();
  for (const token of await Promise.all(pending)) assert.ok((await jwtVerify(token, publicKey)).payload.sub);
  await assert.rejects(sign("k1", jwk, { sub: "late" }), /closed/);
});

Deno.test("AUTH_SIGNING_LIBCRYPTO: a library that does not load is named; off and a missing default fall back", async () => {
  assert.match(
    (libcryptoSigner("/nonexistent/libcrypto.so") as { unavailable: string }).unavailable,
    /\/nonexistent\/libcrypto.so could not be loaded/,
  );
  assert.throws(
    () => keySignerFor("/nonexistent/libcrypto.so"),
    /AUTH_SIGNING_LIBCRYPTO: .*could not be loaded/,
  );
  const off = keySignerFor("off");
  assert.match(off.note, /WebCrypto/);
  const auto = keySignerFor(undefined);
  assert.match(auto.note, /libcrypto/);
  for (const chosen of [off, auto]) {
    try {
      assert.equal(
        (await jwtVerify(await chosen.signer("k1", jwk, { sub: "x" }), publicKey)).payload.sub,
        "x",
      );
    } finally {
      chosen.signer.close();
    }
  }
});

Deno.test("maxInFlight below 1 (or not a whole number) is refused, not a signer that never signs", () => {
  for (const maxInFlight of [0, -1, 0.5, NaN]) {
    assert.throws(() => libcryptoSigner(undefined, { maxInFlight }), RangeError);
  }
});
