/** The Better Auth trio stays on exactly 1.6.23 (its schema is the storage contract). */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

Deno.test("better-auth, @better-auth/core and @better-auth/oauth-provider are pinned to exactly 1.6.23", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  assert.equal(config.imports["better-auth"], "npm:better-auth@1.6.23");
  assert.equal(config.imports["@better-auth/core"], "npm:@better-auth/core@1.6.23");
  assert.equal(config.imports["@better-auth/oauth-provider"], "npm:@better-auth/oauth-provider@1.6.23");
  const lock = await Deno.readTextFile(new URL("deno.lock", ROOT));
  const versions = new Set(
    [...lock.matchAll(/"(?:npm:)?(better-auth|@better-auth\/[a-z-]+)@(\d+\.\d+\.\d+)/g)]
      .filter((m) => m[1] !== "@better-auth/utils")
      .map((m) => `${m[1]}@${m[2]}`),
  );
  for (const entry of versions) assert.match(entry, /@1\.6\.23$/, `locked ${entry}`);
  assert.ok(versions.has("@better-auth/core@1.6.23") && versions.has("@better-auth/oauth-provider@1.6.23"));
});
