import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, jwtVerify } from "jose";
import { offThreadSigner } from "./off_thread_signer.ts";

const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
const jwk = await exportJWK(privateKey) as Record<string, unknown>;
const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "the signing thread answers RS256 tokens the public key verifies, each with its own payload",
  e2e,
  async () => {
    const sign = offThreadSigner();
    try {
      const tokens = await Promise.all(
        Array.from({ length: 200 }, (_, i) => sign("k1", jwk, { sub: `user-${i}`, iat: 1 })),
      );
      for (const [i, token] of tokens.entries()) {
        const { payload, protectedHeader } = await jwtVerify(token, publicKey);
        assert.equal(payload.sub, `user-${i}`);
        assert.deepEqual(protectedHeader, { alg: "RS256", kid: "k1" });
      }
    } finally {
      sign.close();
    }
  },
);

Deno.test("without a worker the same tokens are signed on the calling thread", async () => {
  const sign = offThreadSigner({ worker: false });
  const token = await sign("k2", jwk, { sub: "u" });
  assert.equal((await jwtVerify(token, publicKey)).payload.sub, "u");
});

Deno.test(
  "a key the signing thread cannot import is refused without its material in the error",
  e2e,
  async () => {
    const sign = offThreadSigner();
    try {
      const broken = { ...jwk, n: "AA" };
      await assert.rejects(sign("bad", broken, { sub: "u" }), (error: Error) => {
        assert.doesNotMatch(error.message, new RegExp(String(jwk.d).slice(0, 16)));
        return true;
      });
      // The thread keeps serving other keys.
      assert.equal((await jwtVerify(await sign("k1", jwk, { sub: "v" }), publicKey)).payload.sub, "v");
    } finally {
      sign.close();
    }
  },
);

Deno.test("a signer whose worker is closed signs on the calling thread", e2e, async () => {
  const sign = offThreadSigner();
  await sign("k1", jwk, { sub: "before" });
  sign.close();
  const token = await sign("k1", jwk, { sub: "after" });
  assert.equal((await jwtVerify(token, publicKey)).payload.sub, "after");
});
