import assert from "node:assert/strict";
import {
  base64urlDecode,
  base64urlEncode,
  hmacSha256,
  hmacSha256Hex,
  sha256Base64url,
  sha256Hex,
  timingSafeEqual,
} from "./crypto.ts";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

Deno.test("sha256Hex matches the FIPS 180-4 examples", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256Hex equals Web Crypto for every length around the block boundaries, for UTF-8 and bytes", async () => {
  const texts = [
    ...Array.from({ length: 200 }, (_, n) => "sy_" + "k".repeat(n)),
    "é",
    "日本語のキー",
    "🔑".repeat(40),
  ];
  for (const text of texts) {
    const bytes = new TextEncoder().encode(text);
    const expected = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
    assert.equal(sha256Hex(text), expected, `length ${text.length}`);
    assert.equal(sha256Hex(bytes), expected, `bytes of length ${bytes.length}`);
  }
});

Deno.test("sha256Base64url is RFC 7636's S256 challenge and equals Web Crypto's digest in base64url", async () => {
  // RFC 7636 Appendix B: the verifier and its S256 code challenge.
  assert.equal(
    sha256Base64url("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
  const texts = [
    ...Array.from({ length: 200 }, (_, n) => "tok_" + "Ab9".repeat(n).slice(0, n)),
    "é",
    "日本語のキー",
    "🔑".repeat(40),
    "\ud800 lone surrogate",
  ];
  for (const text of texts) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    assert.equal(sha256Base64url(text), base64urlEncode(digest));
    assert.equal(sha256Base64url(new TextEncoder().encode(text)), base64urlEncode(digest));
  }
});

Deno.test("hmacSha256 matches RFC 4231 test cases 1 and 2 and Web Crypto", async () => {
  const key1 = new Uint8Array(20).fill(0x0b);
  assert.equal(
    hmacSha256Hex(key1, "Hi There"),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  );
  assert.equal(
    hex(hmacSha256("Jefe", "what do ya want for nothing?")),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("a secret"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("ü data")));
  assert.deepEqual(hmacSha256("a secret", "ü data"), expected);
});

Deno.test("base64urlEncode writes RFC 4648 §5 without padding and base64urlDecode reads it back", () => {
  assert.equal(base64urlEncode(""), "");
  assert.equal(base64urlEncode("f"), "Zg");
  assert.equal(base64urlEncode("foob"), "Zm9vYg");
  assert.equal(base64urlEncode(new Uint8Array([0xfb, 0xff, 0xbf])), "-_-_");
  for (let n = 0; n < 70; n++) {
    const bytes = crypto.getRandomValues(new Uint8Array(n));
    const text = base64urlEncode(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/);
    assert.deepEqual(base64urlDecode(text), bytes);
  }
  assert.deepEqual(base64urlDecode("Zg=="), new TextEncoder().encode("f"));
});

Deno.test("base64urlDecode refuses the standard alphabet, whitespace and impossible lengths", () => {
  for (const bad of ["+/+/", "ab/c", "Zm9v YmFy", "Z", "Zm9vY", "Zg===", "Zg=a", "é"]) {
    assert.equal(base64urlDecode(bad), undefined, bad);
  }
});

Deno.test("timingSafeEqual is true only for identical content", () => {
  assert.equal(timingSafeEqual("abc", "abc"), true);
  assert.equal(timingSafeEqual("abc", "abd"), false);
  assert.equal(timingSafeEqual("abc", "abcd"), false);
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), "\u0001\u0003"), false);
});
