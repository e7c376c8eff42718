import assert from "node:assert/strict";
import auth from "./main.ts";

Deno.test("auth health answers without configuration, database or secrets", async () => {
  const response = await auth.fetch(new Request("http://localhost:37960/api/health"));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok", service: "auth" });
});

Deno.test("auth answers 503 and logs every bad key when its configuration is invalid", async () => {
  const saved = Deno.env.get("AUTH_BASE_URL");
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    Deno.env.set("AUTH_BASE_URL", "not a url");
    const response = await auth.fetch(new Request("http://localhost:37960/sign-in"));
    assert.equal(response.status, 503);
    await response.body?.cancel();
    assert.match(errors.join("\n"), /AUTH_BASE_URL: expected an absolute http\(s\) URL/);
  } finally {
    console.error = original;
    if (saved === undefined) Deno.env.delete("AUTH_BASE_URL");
    else Deno.env.set("AUTH_BASE_URL", saved);
  }
});
