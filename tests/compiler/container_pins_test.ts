import assert from "node:assert/strict";
import { compileOne, diagnosticsOf } from "./helpers.ts";
import { readLockManifest } from "../../compiler/mod.ts";

const DIGEST = `sha256:${"0f".repeat(32)}`;
const WORKFLOW = "---\non: workflow_dispatch\n---\nSay hello.\n";

Deno.test("aw.json container_pins pin the images the agent job pulls and the manifest lists", async () => {
  const awJson = JSON.stringify({
    container_pins: {
      "ghcr.io/github/gh-aw-mcpg:v0.3.22": { image: "registry.acme.com/gh-aw-mcpg:v0.3.22", digest: DIGEST },
    },
  });
  const { lock } = await compileOne(WORKFLOW, { ".github/workflows/aw.json": awJson });
  const pinned = `registry.acme.com/gh-aw-mcpg:v0.3.22@${DIGEST}`;
  const download = lock.split("\n").find((line) => line.includes("download_docker_images"));
  assert.ok(download?.includes(pinned), download ?? "no image download step");
  assert.ok(!download?.includes("ghcr.io/github/gh-aw-mcpg:v0.3.22 "), "the unpinned reference is gone");
  const manifest = readLockManifest(lock) as { containers: Record<string, string>[] };
  assert.ok(manifest.containers.some((c) => c.pinned_image === pinned && c.digest === DIGEST));
});

Deno.test("an invalid container pin in aw.json is an error naming the image", async () => {
  const awJson = JSON.stringify({ container_pins: { "alpine:3": { image: "alpine:3", digest: "latest" } } });
  const diagnostics = await diagnosticsOf(WORKFLOW, { ".github/workflows/aw.json": awJson });
  const problem = diagnostics.find((d) => d.code === "invalid-aw-json");
  assert.ok(problem, JSON.stringify(diagnostics));
  assert.match(problem.message, /container_pins\["alpine:3"\]: digest must be sha256:/);
  assert.equal(problem.file, ".github/workflows/aw.json");
});
