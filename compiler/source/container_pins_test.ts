import assert from "node:assert/strict";
import { applyContainerPins, parseContainerPins } from "./container_pins.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

Deno.test("container pins replace listed images by image@digest and leave others alone", () => {
  const { pins, problems } = parseContainerPins({
    "node:lts-alpine": { image: "registry.acme.com/node:lts-alpine", digest: DIGEST },
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(applyContainerPins(["node:lts-alpine", "alpine:3"], pins), [
    `registry.acme.com/node:lts-alpine@${DIGEST}`,
    "alpine:3",
  ]);
});

Deno.test("container pins with a bad digest, a digest in image or extra keys are refused, naming the image", () => {
  const { pins, problems } = parseContainerPins({
    "a:1": { image: "a:1", digest: "sha256:xyz" },
    "b:1": { image: `b:1@${DIGEST}`, digest: DIGEST },
    "c:1": { image: "c:1", digest: DIGEST, tag: "x" },
  });
  assert.deepEqual(pins, {});
  assert.equal(problems.length, 3);
  assert.match(problems[0], /container_pins\["a:1"\]: digest must be sha256:/);
  assert.match(problems[1], /container_pins\["b:1"\]: image must not carry a digest/);
  assert.match(problems[2], /container_pins\["c:1"\]/);
  assert.match(parseContainerPins([1]).problems[0], /must be an object/);
});
