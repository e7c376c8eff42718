import { assertEquals } from "./test_assert.ts";
import { eventCondition, FORK_GUARD } from "./jobs_activation.ts";

const LABELS = "github.event_name != 'pull_request' || github.event.action != 'labeled' || " +
  "github.event.label.name == 'a' || github.event.label.name == 'b'";

Deno.test("the event condition nests frontmatter if, fork guard and label filter left to right", () => {
  assertEquals(eventCondition(undefined, false), undefined);
  assertEquals(eventCondition(undefined, true), FORK_GUARD);
  assertEquals(eventCondition(undefined, true, ["a", "b"]), `(${FORK_GUARD}) && (${LABELS})`);
  assertEquals(eventCondition("x == 1", true, ["a", "b"]), `((x == 1) && (${FORK_GUARD})) && (${LABELS})`);
  assertEquals(eventCondition("x == 1", false, []), "x == 1");
});
