import assert from "node:assert/strict";
import { parseVersion, pickUpgrade } from "./semver.ts";

Deno.test("parseVersion reads short, full and pre-release tags and rejects branch names", () => {
  assert.deepEqual(parseVersion("v4")?.parts, [4, 0, 0]);
  assert.equal(parseVersion("1.2.3-rc.1")?.prerelease, "rc.1");
  assert.equal(parseVersion("main"), undefined);
  assert.equal(parseVersion("v1.2.3.4"), undefined);
});

Deno.test("pickUpgrade stays in the major, skips pre-releases and never downgrades", () => {
  const tags = ["v5.0.0", "v4.3.0-beta", "v4.2.1", "v4.2", "v4.10.0", "v3.9.9", "latest"];
  assert.equal(pickUpgrade(tags, "v4.2.0", false), "v4.10.0");
  assert.equal(pickUpgrade(tags, "v4.2.0", true), "v5.0.0");
  assert.equal(pickUpgrade(tags, "v5.0.0", true), undefined);
  assert.equal(pickUpgrade(["v4", "v4.0.0"], "v3.1.0", true), "v4.0.0", "the precise tag wins a tie");
  assert.equal(pickUpgrade(["v4.0.0"], "v4", false), undefined, "equal versions are not upgrades");
});
