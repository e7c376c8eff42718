import { assertEquals } from "../test_assert.ts";
import { breakLongExpression } from "./expr_break.ts";

Deno.test("long conditions break after operators past 100 characters, never inside quotes", () => {
  assertEquals(breakLongExpression("a == 'b'"), ["a == 'b'"]);
  const cond =
    "needs.pre_activation.outputs.activated == 'true' && (fromJSON(github.event.inputs.aw_context || " +
    "'{}').event_type == 'pull_request' && fromJSON(github.event.inputs.aw_context || '{}').trigger_label == 'x')";
  const lines = breakLongExpression(cond);
  assertEquals(lines.join(" "), cond);
  assertEquals(
    lines[0],
    "needs.pre_activation.outputs.activated == 'true' && (fromJSON(github.event.inputs.aw_context || '{}').event_type == 'pull_request' &&",
  );
  assertEquals(breakLongExpression(`x == '${"a || ".repeat(40)}'`).length, 1);
});
