import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex } from "./sha256.ts";

Deno.test("sha256Hex matches the FIPS 180-4 examples", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256Hex equals node:crypto for every length around the block boundaries and for UTF-8", () => {
  for (let n = 0; n < 300; n++) {
    const text = "sy_" + "k".repeat(n);
    assert.equal(sha256Hex(text), createHash("sha256").update(text).digest("hex"), `length ${n}`);
  }
  for (const text of ["é", "日本語のキー", "🔑".repeat(40)]) {
    assert.equal(sha256Hex(text), createHash("sha256").update(text).digest("hex"));
  }
});
