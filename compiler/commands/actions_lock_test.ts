import assert from "node:assert/strict";
import { formatActionsLock, parseActionsLock } from "./actions_lock.ts";

const CORPUS = new URL("../../../shared/ghaw-corpus/.github/aw/actions-lock.json", import.meta.url);
const corpus = await Deno.readTextFile(CORPUS).catch(() => undefined);

Deno.test({
  name: "formatActionsLock reproduces gh-aw's own actions-lock.json byte for byte",
  ignore: corpus === undefined,
  fn: () => {
    const parsed = parseActionsLock(corpus!);
    assert.ok(typeof parsed !== "string");
    assert.equal(formatActionsLock(parsed), corpus);
  },
});

Deno.test("formatActionsLock sorts entries, keeps extra fields and escapes HTML characters like Go", () => {
  const text = formatActionsLock({
    entries: {
      "b/x@v1": { repo: "b/x", version: "v1", sha: "1".repeat(40), action_description: "a <b> & c" },
      "a/y@v2": { repo: "a/y", version: "v2", sha: "2".repeat(40) },
    },
  });
  assert.ok(text.indexOf("a/y@v2") < text.indexOf("b/x@v1"));
  assert.match(text, /"action_description": "a \\u003cb\\u003e \\u0026 c"/);
  assert.ok(text.endsWith("}\n"));
  assert.doesNotMatch(text, /containers/);
});

Deno.test("parseActionsLock names the broken entry", () => {
  assert.match(
    String(parseActionsLock('{"entries":{"a@v1":{"repo":"a"}}}')),
    /entry "a@v1" needs string "repo", "version" and "sha"/,
  );
  assert.match(String(parseActionsLock("[]")), /must be a JSON object/);
});
