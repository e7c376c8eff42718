import assert from "node:assert/strict";
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
