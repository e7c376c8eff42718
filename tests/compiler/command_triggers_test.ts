/** Issue 19 item 9: `slash_command.events` narrows the command's condition; `label_command` checks the label. */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Lock = { on: Record<string, unknown>; jobs: Record<string, { if?: string }> };

async function lockOf(on: string): Promise<Lock> {
  const { lock } = await compileOne(`---\non:\n${on}\npermissions:\n  contents: read\n---\n# Task\n`);
  const parsed = parse(lock) as Lock;
  // A long condition is written as a folded block: its value ends with the block's newline.
  for (const job of Object.values(parsed.jobs)) if (job.if) job.if = job.if.trim();
  return parsed;
}

Deno.test("a slash command narrowed to pull-request comments runs only on comments of pull requests", async () => {
  const lock = await lockOf("  slash_command:\n    name: fix\n    events: [pull_request_comment]");
  assertEquals(Object.keys(lock.on).filter((e) => e !== "workflow_dispatch"), ["issue_comment"]);
  for (const job of ["pre_activation", "activation"]) {
    const cond = lock.jobs[job].if ?? "";
    assert(cond.includes("github.event.issue.pull_request != null"), `${job}: ${cond}`);
    assert(!cond.includes("github.event.issue.pull_request == null"), `${job}: ${cond}`);
    assert(!cond.includes("github.event_name == 'issues'"), `${job}: ${cond}`);
    // The newline alternative is a real newline (expressions have no escapes), as gh-aw writes it.
    assert(cond.includes("startsWith(github.event.comment.body, '/fix\n')"), `${job}: ${cond}`);
  }
  assert(lock.jobs.activation.if?.startsWith("needs.pre_activation.outputs.activated == 'true' && ("));
});

Deno.test("a slash command on issue comments excludes pull requests and guards the comment's author", async () => {
  const lock = await lockOf("  slash_command:\n    name: triage\n    events: [issues, issue_comment]");
  const pre = lock.jobs.pre_activation.if ?? "";
  assert(pre.includes("github.event.issue.pull_request == null"), pre);
  assert(!pre.includes("github.event.issue.pull_request != null"), pre);
  assert(
    pre.includes(
      `contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association)`,
    ),
  );
  // The author guard only gates pre-activation; activation waits for it.
  assert(!(lock.jobs.activation.if ?? "").includes("author_association"));
});

Deno.test("a slash command without events listens everywhere and checks each event's own text", async () => {
  const lock = await lockOf("  slash_command:\n    name: ask");
  const cond = lock.jobs.activation.if ?? "";
  for (const body of ["issue.body", "comment.body", "pull_request.body", "discussion.body"]) {
    assert(cond.includes(`startsWith(github.event.${body}, '/ask ')`), body);
  }
});

Deno.test("a label command checks the label name in pre-activation and activation", async () => {
  const lock = await lockOf("  label_command:\n    name: deploy\n    events: [issues]");
  const expected = "github.event_name == 'issues' && github.event.label.name == 'deploy' || " +
    "!(github.event_name == 'issues')";
  assertEquals(lock.jobs.pre_activation.if, expected);
  assertEquals(lock.jobs.activation.if, `needs.pre_activation.outputs.activated == 'true' && (${expected})`);
});

Deno.test("a label command with several names and events accepts any of the names on any of the events", async () => {
  const lock = await lockOf(
    "  label_command:\n    names: [ship, deploy]\n    events: [issues, pull_request]",
  );
  assertEquals(
    lock.jobs.pre_activation.if,
    "(github.event_name == 'issues' || github.event_name == 'pull_request') && " +
      "(github.event.label.name == 'ship' || github.event.label.name == 'deploy') || " +
      "(!(github.event_name == 'issues')) && (!(github.event_name == 'pull_request'))",
  );
});

Deno.test("a slash command without a name is the workflow's id, as gh-aw names it", async () => {
  const { lock } = await compileOne(
    "---\non:\n  slash_command:\n    strategy: centralized\n    events: [pull_request_comment]\n---\n# Task\n",
  );
  // w.md compiles to the command "w" in the pre-activation check (and nowhere an empty list).
  assert(lock.includes('      GH_AW_COMMANDS: "[\\"w\\"]"\n'));
  assertEquals(lock.includes('GH_AW_COMMANDS: "[]"'), false);
});
