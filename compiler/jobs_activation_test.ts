import { assertEquals } from "./test_assert.ts";
import { activationWrites, eventCondition, FORK_GUARD } from "./jobs_activation.ts";

const LABELS = "github.event_name != 'pull_request' || github.event.action != 'labeled' || " +
  "github.event.label.name == 'a' || github.event.label.name == 'b'";

Deno.test("the event condition nests frontmatter if, fork guard and label filter left to right", () => {
  assertEquals(eventCondition(undefined, false), undefined);
  assertEquals(eventCondition(undefined, true), FORK_GUARD);
  assertEquals(eventCondition(undefined, true, ["a", "b"]), `(${FORK_GUARD}) && (${LABELS})`);
  assertEquals(eventCondition("x == 1", true, ["a", "b"]), `((x == 1) && (${FORK_GUARD})) && (${LABELS})`);
  assertEquals(eventCondition("x == 1", false, []), "x == 1");
});

Deno.test("activation write scopes follow the triggering events", () => {
  assertEquals(activationWrites({ reaction: "eyes", statusComment: true, activationEvents: ["issues"] }), {
    issues: "write",
  });
  assertEquals(
    activationWrites({
      reaction: "eyes",
      statusComment: false,
      activationEvents: ["issue_comment", "discussion"],
    }),
    { issues: "write", discussions: "write", "pull-requests": "write" },
  );
  // A status comment never needs pull-requests: write; dispatch alone needs nothing.
  assertEquals(
    activationWrites({ statusComment: true, activationEvents: ["workflow_dispatch", "pull_request"] }),
    { issues: "write" },
  );
  assertEquals(activationWrites({ statusComment: true, activationEvents: ["workflow_dispatch"] }), {});
  assertEquals(
    activationWrites({
      statusComment: false,
      activationEvents: ["workflow_dispatch"],
      labelRemoval: { events: ["issues", "discussion"] },
    }),
    { issues: "write", discussions: "write" },
  );
});
