import assert from "node:assert/strict";
import { base64urlEncode, hmacSha256 } from "@switchyard/lib/crypto.ts";
import { type LogoutRequest, signLogoutRequest, verifyLogoutRequest } from "./logout_request.ts";

const SECRET = "a-secret-of-at-least-thirty-two-characters";
const request = (exp: number): LogoutRequest => ({
  clientId: "c",
  redirect: "https://app.example.test/bye",
  state: "s",
  session: "sess-1",
  exp,
});

Deno.test("a signed logout request verifies with the same secret before it expires", async () => {
  const token = await signLogoutRequest(SECRET, request(Date.now() + 60_000));
  assert.deepEqual(
    await verifyLogoutRequest(SECRET, token),
    request(
      JSON.parse(atob(
        token.split(".")[0].replaceAll("-", "+").replaceAll("_", "/"),
      )).exp,
    ),
  );
});

Deno.test("expired, re-signed with another secret, or altered logout requests are refused", async () => {
  assert.equal(
    await verifyLogoutRequest(SECRET, await signLogoutRequest(SECRET, request(Date.now() - 1))),
    undefined,
  );
  const other = await signLogoutRequest(`${SECRET}-other`, request(Date.now() + 60_000));
  assert.equal(await verifyLogoutRequest(SECRET, other), undefined);
  const token = await signLogoutRequest(SECRET, request(Date.now() + 60_000));
  const [body, mac] = token.split(".");
  assert.equal(await verifyLogoutRequest(SECRET, `${body}x.${mac}`), undefined);
  assert.equal(await verifyLogoutRequest(SECRET, `${body}.${mac}.extra`), undefined);
  assert.equal(await verifyLogoutRequest(SECRET, ""), undefined);
});

Deno.test("a logout request signed by the former Web Crypto code (tokens in flight on upgrade) still verifies", async () => {
  const body = btoa(JSON.stringify(request(Date.now() + 60_000))).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(`switchyard end-session\n${SECRET}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const tag = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  const mac = btoa(String.fromCharCode(...tag)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  assert.equal((await verifyLogoutRequest(SECRET, `${body}.${mac}`))?.session, "sess-1");
  assert.equal(await verifyLogoutRequest(`${SECRET}x`, `${body}.${mac}`), undefined);
});

Deno.test("a correctly signed logout request whose body is not base64url JSON is refused, not thrown", async () => {
  const sign = (body: string) =>
    `${body}.${base64urlEncode(hmacSha256(`switchyard end-session\n${SECRET}`, body))}`;
  const good = (await signLogoutRequest(SECRET, request(Date.now() + 60_000))).split(".")[0];
  assert.equal((await verifyLogoutRequest(SECRET, sign(good)))?.session, "sess-1");
  for (const body of ["not+base64url", "bm90IGpzb24", "e30", "Z"]) {
    assert.equal(await verifyLogoutRequest(SECRET, sign(body)), undefined, body);
  }
});
