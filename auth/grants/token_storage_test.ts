import assert from "node:assert/strict";
import { sha256Base64url } from "@switchyard/lib/crypto.ts";
import { ISSUED_TOKEN_LENGTH, issueOpaqueToken, randomToken, storedTokenHash } from "./token_storage.ts";

Deno.test("issued tokens are 40 letters, the creation time first, then 32 random letters", () => {
  const times = [0, 51, 52, 1_795_000_000_000, 1_795_000_000_001, 52 ** 8 - 1];
  const tokens = times.map((t) => issueOpaqueToken(t));
  for (const token of tokens) assert.match(token, /^[A-Za-z]{40}$/);
  assert.equal(ISSUED_TOKEN_LENGTH, 40);
  assert.deepEqual([...tokens].sort(), tokens, "byte order is time order");
  const [a, b] = [issueOpaqueToken(5), issueOpaqueToken(5)];
  assert.equal(a.slice(0, 8), "AAAAAAAF");
  assert.notEqual(a.slice(8), b.slice(8), "the 32 letters after the time are random");
  assert.equal(new Set(Array.from({ length: 1000 }, () => issueOpaqueToken().slice(8))).size, 1000);
});

Deno.test("an issued token is stored as its time letters and its SHA-256; any other token as its SHA-256", () => {
  const issued = issueOpaqueToken(1_795_000_000_000);
  assert.equal(storedTokenHash(issued), issued.slice(0, 8) + sha256Base64url(issued));
  assert.equal(storedTokenHash(issued).length, 51);
  // Tokens of the earlier form (Better Auth 1.6.23's 32 letters) and anything else keep the plain hash.
  const legacy = randomToken();
  assert.equal(storedTokenHash(legacy), sha256Base64url(legacy));
  for (
    const other of ["", "x", randomToken(39), randomToken(41), `${randomToken(39)}-`, `${randomToken(39)}é`]
  ) {
    assert.equal(storedTokenHash(other), sha256Base64url(other));
  }
  // The stored form never contains the random part of the token.
  assert.ok(!storedTokenHash(issued).includes(issued.slice(8, 16)));
});

Deno.test("stored forms of tokens issued one after another sort in issue order (the index grows at its end)", () => {
  const start = 1_795_000_000_000;
  const stored = Array.from({ length: 200 }, (_, i) => storedTokenHash(issueOpaqueToken(start + i)));
  assert.deepEqual([...stored].sort(), stored);
  // Plain hashes of the same tokens do not: that was the random index page each insert dirtied.
  const plain = Array.from({ length: 200 }, (_, i) => sha256Base64url(issueOpaqueToken(start + i)));
  assert.notDeepEqual([...plain].sort(), plain);
});

Deno.test("randomToken draws every letter about equally, across many refills of its byte pool", () => {
  const counts = new Map<string, number>();
  // 2,000 tokens of 40 letters: about 90 KB of random bytes, some twenty refills of the 4 KB pool.
  for (let i = 0; i < 2000; i++) {
    const token = randomToken(40);
    assert.match(token, /^[A-Za-z]{40}$/);
    for (const letter of token) counts.set(letter, (counts.get(letter) ?? 0) + 1);
  }
  assert.equal(counts.size, 52, "every letter occurs");
  // 80,000 letters: about 1,538 each (σ ≈ 39). Taking byte % 52 without rejecting bytes from 208 would give
  // four letters about 1,250 (4 in 256) and the others about 1,563: those four fall outside ±250.
  for (const [letter, n] of counts) assert.ok(Math.abs(n - 80_000 / 52) < 250, `${letter}: ${n}`);
});
