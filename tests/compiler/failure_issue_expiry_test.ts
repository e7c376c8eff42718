/** Issue 19 item 10: failure-issue expiry (aw.json, else 168 hours) and `noop.report-as-issue`. */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compile } from "../../compiler/mod.ts";

const WORKFLOW = "---\non: issues\nengine: copilot\nsafe-outputs:\n  add-comment:\n---\n# W\nComment.\n";

async function expiryOf(files: Record<string, string>): Promise<string | undefined> {
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: [".github/workflows/w.md"],
    readFile: (path) => Promise.resolve(files[path]),
  });
  const lock = result.workflows[0].lockContent;
  assert.ok(lock, JSON.stringify(result.workflows[0].diagnostics));
  const steps = Object.values(
    parse(lock).jobs as Record<string, { steps?: { env?: Record<string, string> }[] }>,
  )
    .flatMap((job) => job.steps ?? []);
  return steps.map((s) => s.env?.GH_AW_ACTION_FAILURE_ISSUE_EXPIRES_HOURS).find((v) => v !== undefined);
}

Deno.test("without aw.json, failure issues expire after 168 hours; aw.json's setting wins", async () => {
  assert.equal(await expiryOf({ ".github/workflows/w.md": WORKFLOW }), "168");
  assert.equal(
    await expiryOf({
      ".github/workflows/w.md": WORKFLOW,
      ".github/workflows/aw.json": JSON.stringify({ maintenance: { action_failure_issue_expires: 12 } }),
    }),
    "12",
  );
});

Deno.test("noop.report-as-issue: false reaches the no-op step and the handler config (default true)", async () => {
  const lockFor = async (noop: string) => {
    const files: Record<string, string> = {
      ".github/workflows/w.md":
        `---\non: issues\nengine: copilot\nsafe-outputs:\n  add-comment:\n${noop}---\n# W\nDo.\n`,
    };
    const result = await compile({
      repoRoot: "/nonexistent-repo",
      workflows: [".github/workflows/w.md"],
      readFile: (path) => Promise.resolve(files[path]),
    });
    return result.workflows[0].lockContent!;
  };
  const off = await lockFor("  noop:\n    report-as-issue: false\n");
  assert.match(off, /GH_AW_NOOP_REPORT_AS_ISSUE: "false"/);
  assert.match(
    off,
    /\\"noop\\":\{\\"max\\":1,\\"report-as-issue\\":\\"false\\"\}|"noop":\{"max":1,"report-as-issue":"false"\}/,
  );
  assert.match(await lockFor(""), /GH_AW_NOOP_REPORT_AS_ISSUE: "true"/);
});
