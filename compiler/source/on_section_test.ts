import { assertEquals } from "../test_assert.ts";
import { readOn, writtenEvent } from "./on_section.ts";

Deno.test("on: short texts read into the trigger mapping they stand for", () => {
  assertEquals(readOn("daily"), {
    shorthand: "daily",
    triggers: { schedule: "daily", workflow_dispatch: null },
  });
  assertEquals(readOn("issues"), { shorthand: "issues", triggers: { issues: null } });
  assertEquals(readOn("/fix").triggers, { slash_command: { name: "fix" }, workflow_dispatch: null });
  assertEquals(readOn("label-command deploy").triggers, { label_command: { name: "deploy" } });
  const labeled = readOn("pull_request labeled bug, triage").triggers;
  assertEquals(labeled.pull_request, { types: ["labeled"], names: ["bug", "triage"] });
  assertEquals(Object.keys(labeled.workflow_dispatch?.inputs ?? {}), ["item_number"]);
});

Deno.test("on: a mapping is copied in the author's key order; anything else reads as no triggers", () => {
  const written = { workflow_dispatch: null, push: { branches: ["main"] }, roles: "all" };
  const on = readOn(written);
  assertEquals(on.shorthand, undefined);
  assertEquals(Object.keys(on.triggers), ["workflow_dispatch", "push", "roles"]);
  on.triggers.issues = null;
  assertEquals(Object.keys(written), ["workflow_dispatch", "push", "roles"]);
  assertEquals(readOn(undefined), { triggers: {} });
});

Deno.test("on: an event counts as written only in the author's mapping", () => {
  assertEquals(writtenEvent(readOn({ pull_request: null }), "pull_request"), true);
  assertEquals(writtenEvent(readOn("pull_request"), "pull_request"), false);
  assertEquals(writtenEvent(readOn({ push: null }), "pull_request"), false);
});

Deno.test("on: command triggers read in their mapping form, an empty slash_command falling back to command", () => {
  assertEquals(readOn({ slash_command: "fix" }).slashCommand, { name: "fix" });
  assertEquals(readOn({ command: { name: "old", events: ["issues"] } }).slashCommand, {
    name: "old",
    events: ["issues"],
  });
  assertEquals(readOn({ slash_command: null, command: "legacy" }).slashCommand, { name: "legacy" });
  assertEquals(readOn({ slash_command: null }).slashCommand, undefined);
  assertEquals(readOn({ label_command: null }).labelCommand, {});
  assertEquals(readOn("/fix").slashCommand, { name: "fix" });
  assertEquals(readOn({ push: null }).labelCommand, undefined);
});

Deno.test("on: stop-after, reaction and roles read as text, as gh-aw reads them", () => {
  const on = readOn({ "stop-after": "+30d", reaction: "rocket", roles: ["admin", "write"] });
  assertEquals([on.stopAfter, on.reaction, on.roles], ["+30d", "rocket", ["admin", "write"]]);
  assertEquals(readOn({ reaction: 1 }).reaction, "1");
  assertEquals(readOn({ reaction: { x: 1 } }).reaction, undefined);
  assertEquals(readOn({ "stop-after": null }).stopAfter, undefined);
  assertEquals(readOn({ roles: "all" }).roles, "all");
  assertEquals(readOn({ roles: "admin" }).roles, ["admin"]);
  assertEquals(readOn({ roles: null }).roles, undefined);
  // The keys stay in the trigger mapping as written (the lock comments `roles:` out as written).
  assertEquals(Object.keys(on.triggers), ["stop-after", "reaction", "roles"]);
});
