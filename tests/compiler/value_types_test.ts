/**
 * Issue 19 item 13: wrong types are refused with the expected form in plain words and a hint (they used to
 * compile silently), and zod's raw "Invalid input" never reaches an author.
 */
import assert from "node:assert/strict";
import { compile } from "../../compiler/mod.ts";
import { compileOne } from "./helpers.ts";

async function diagnosticsOf(frontmatter: string) {
  const files: Record<string, string> = {
    ".github/workflows/w.md": `---\non: issues\n${
      frontmatter.includes("engine:") ? "" : "engine: copilot\n"
    }${frontmatter}\n---\n# W\nDo it.\n`,
  };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: Object.keys(files),
    readFile: (path) => Promise.resolve(files[path]),
  });
  return result.workflows[0];
}

Deno.test("max: lots, tools.bash: 5 and timeout-minutes: -5 are refused with the expected form and a hint", async () => {
  const cases: [string, RegExp, number][] = [
    [
      "safe-outputs:\n  create-issue:\n    max: lots",
      /"safe-outputs\.create-issue\.max" must be a whole number, 1 or more.*got "lots"/,
      6,
    ],
    ["tools:\n  bash: 5", /"tools\.bash" must be true, false, null, or a list of allowed commands, got 5/, 5],
    ["timeout-minutes: -5", /"timeout-minutes" must be a whole number of minutes, 1 or more.*got -5/, 4],
    ["timeout-minutes: lots", /"timeout-minutes" must be a whole number of minutes.*got "lots"/, 4],
    ["engine:\n  id: claude\n  max-turns: 0", /"engine\.max-turns" must be a whole number of turns/, 5],
  ];
  for (const [frontmatter, message, line] of cases) {
    const workflow = await diagnosticsOf(frontmatter);
    assert.equal(workflow.lockContent, undefined, frontmatter);
    const errors = workflow.diagnostics.filter((d) => d.severity === "error");
    assert.equal(errors.length, 1, `${frontmatter}: ${JSON.stringify(errors)}`);
    assert.match(errors[0].message, message);
    assert.equal(errors[0].line, line, frontmatter);
    assert.ok(errors[0].hint, "a hint");
    assert.ok(!/invalid input/i.test(errors[0].message));
  }
});

Deno.test("the accepted forms still compile", async () => {
  for (
    const frontmatter of [
      "timeout-minutes: 20",
      "timeout-minutes: ${{ inputs.minutes }}",
      'tools:\n  bash: ["git status"]',
      "tools:\n  bash: true",
      "tools:\n  bash:",
      "safe-outputs:\n  create-issue:\n    max: 3",
    ]
  ) {
    const workflow = await diagnosticsOf(frontmatter);
    assert.ok(workflow.lockContent, `${frontmatter}: ${JSON.stringify(workflow.diagnostics)}`);
  }
});

Deno.test('a union mismatch is described in plain words, not zod\'s "Invalid input"', async () => {
  const workflow = await diagnosticsOf("permissions: 5");
  const error = workflow.diagnostics.find((d) => d.severity === "error");
  assert.ok(error);
  assert.ok(!/^invalid input$/i.test(error.message.split(": ").at(-1) ?? ""), error.message);
  assert.match(error.message, /5 is not one of the forms this key accepts/);
});

Deno.test("cache-memory allowed-extensions reach the prompt double-quoted, their leading newline escaped (as gh-aw)", async () => {
  const { lock } = await compileOne(
    '---\non: workflow_dispatch\ntools:\n  cache-memory:\n    allowed-extensions: [".json"]\n---\nHi\n',
  );
  assert(
    lock.includes('GH_AW_ALLOWED_EXTENSIONS: "\\n<allowed-extensions>.json</allowed-extensions>"\n'),
    lock.split("\n").filter((l) => l.includes("ALLOWED_EXTENSIONS")).join("\n"),
  );
});
