import { assert, assertEquals } from "../../test_assert.ts";
import { activationWrites } from "./activation.ts";
import { checkoutLines } from "./activation_prompt.ts";
import { eventCondition, FORK_GUARD } from "./conditions.ts";
import { goFixed2 } from "./go_format.ts";
import { repoMemoryBranch } from "../agent/repo_memory.ts";

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

Deno.test("checkouts are described with their depth, fetched refs and role", () => {
  const lines = checkoutLines([{ "fetch-depth": 0, fetch: ["refs/pulls/open/*"] }, {
    repository: "o/r",
    path: "./side",
    current: true,
    "fetch-depth": 2,
  }]);
  assertEquals(lines.length, 4);
  assertEquals(
    lines[1],
    "  - repo `__GH_AW_GITHUB_REPOSITORY__` → `$GITHUB_WORKSPACE` (cwd) [full history, all branches available as remote-tracking refs] [additional refs fetched: refs/pulls/open/*]",
  );
  assert(lines[2].startsWith("  - repo `o/r` → `$GITHUB_WORKSPACE/side` (**current**"));
  assert(lines[2].endsWith("[shallow clone, fetch-depth=2]"));
  assertEquals(checkoutLines([]), []);
});

Deno.test("memory sizes print like Go's %.2f and branches follow name, prefix or default", () => {
  assertEquals(goFixed2(131072 / 1048576), "0.12");
  assertEquals(goFixed2(102400 / 1048576), "0.10");
  assertEquals(goFixed2(0.375), "0.38");
  assertEquals(repoMemoryBranch({ "branch-prefix": "daily" }, "metrics"), "daily/metrics");
  assertEquals(repoMemoryBranch({ "branch-name": "memory/x", "branch-prefix": "daily" }, "m"), "memory/x");
  assertEquals(repoMemoryBranch({}, "m"), "memory/default");
});
