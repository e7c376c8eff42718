import assert from "node:assert/strict";
import { MAX_JSON_DEPTH, nestingDepthOver, parseJsonBody, validateModelName } from "./validate.ts";
import { GatewayError } from "../errors.ts";

Deno.test("nesting depth counts brackets outside strings only, escapes included", () => {
  assert.equal(nestingDepthOver("[[[]]]", 3), false);
  assert.equal(nestingDepthOver("[[[[]]]]", 3), true);
  assert.equal(nestingDepthOver('{"a":"[[[[[[\\"[[[["}', 2), false);
  assert.equal(nestingDepthOver('[{"a":[{"b":[]}]}]', 4), true);
  assert.equal(nestingDepthOver("[]".repeat(1000), 1), false);
});

Deno.test("a body nested deeper than the limit is refused as invalid_request_error, one within it parses", () => {
  const nest = (n: number) => `{"x":${"[".repeat(n)}${"]".repeat(n)}}`;
  assert.deepEqual(Object.keys(parseJsonBody(nest(MAX_JSON_DEPTH - 1))), ["x"]);
  assert.throws(
    () => parseJsonBody(nest(MAX_JSON_DEPTH)),
    (e) => e instanceof GatewayError && e.type === "invalid_request_error" && /nest deeper/.test(e.message),
  );
});

Deno.test("model names with control characters, spaces or non-ASCII are refused; real names pass", () => {
  for (
    const good of ["claude-sonnet-4-5", "openai/gpt-4.1", "ollama/llama3.2:latest", "bedrock/arn:aws:x/y"]
  ) {
    assert.equal(validateModelName(good), good);
  }
  for (const bad of ["openai/x\r\nX-Evil: 1", "a b", "x\u0000", "modèle", "x".repeat(257), 5, ""]) {
    assert.throws(
      () => validateModelName(bad),
      (e) => e instanceof GatewayError && /^model: /.test(e.message),
    );
  }
});
