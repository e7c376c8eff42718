import assert from "node:assert/strict";
import auth from "./main.ts";

Deno.test("auth health answers without configuration, database or secrets", async () => {
  const response = await auth.fetch(new Request("http://localhost:37960/api/health"));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok", service: "auth" });
});
