import assert from "node:assert/strict";
import gateway from "./main.ts";

Deno.test("gateway health answers without configuration or database", async () => {
  const response = await gateway.fetch(new Request("http://localhost:37961/api/health"));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok", service: "gateway" });
});
