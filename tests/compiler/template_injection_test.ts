/**
 * Issue 19 item 1: no template injection. GitHub expands `${{ … }}` inside a `run:` script before the shell
 * reads it, so an expression of the body, of a shared import or of a frontmatter value must reach the
 * prompt through `env:` (`GH_AW_*` variables and `__GH_AW_…__` placeholders), never as script text.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne, diagnosticsOf } from "./helpers.ts";

const HOSTILE_BODY = "Title: ${{ github.event.issue.title }}, input: ${{ inputs.x }}, " +
  "branch: ${{ github.head_ref }}; shell text $HOME and `$(whoami)` stays text.";

const SHARED = "---\n---\nImported ${{ github.event.issue.body }} text.\n";

function workflow(extra: string): string {
  return "---\non:\n  issues:\n    types: [opened]\n  workflow_dispatch:\n    inputs:\n      x:\n" +
    `        description: x\nengine: copilot\nimports:\n  - shared/a.md\n${extra}---\n# Hostile\n${HOSTILE_BODY}\n`;
}

type Step = { name?: string; run?: string; with?: { script?: string }; env?: Record<string, string> };

function scripts(lock: string): { step: string; text: string }[] {
  const jobs = parse(lock).jobs as Record<string, { steps?: Step[] }>;
  return Object.values(jobs).flatMap((job) => job.steps ?? []).flatMap((s) =>
    [s.run, s.with?.script].filter((t): t is string => typeof t === "string").map((text) => ({
      step: s.name ?? "",
      text,
    }))
  );
}

const UNTRUSTED = /\$\{\{\s*(github\.event|inputs\.|github\.head_ref)/;

for (const inlined of [false, true]) {
  Deno.test(`a hostile body and import reach the prompt through env only (inlined-imports: ${inlined})`, async () => {
    const { lock } = await compileOne(workflow(inlined ? "inlined-imports: true\n" : ""), {
      ".github/workflows/shared/a.md": SHARED,
    });
    const leaks = scripts(lock).filter((s) => UNTRUSTED.test(s.text)).map((s) => s.step);
    assert.deepEqual(leaks, [], "no script contains an event or input expression");
    const create = (parse(lock).jobs.activation.steps as Step[]).find((s) =>
      s.name === "Create prompt with built-in context"
    )!;
    assert.equal(create.env?.GH_AW_GITHUB_EVENT_ISSUE_TITLE, "${{ github.event.issue.title }}");
    assert.equal(create.env?.GH_AW_INPUTS_X, "${{ inputs.x }}");
    // A runtime-imported file's expressions are evaluated by the runtime import itself (as gh-aw), so only
    // the embedded import passes its own through env.
    assert.equal(
      create.env?.GH_AW_GITHUB_EVENT_ISSUE_BODY,
      inlined ? "${{ github.event.issue.body }}" : undefined,
    );
    if (inlined) {
      assert.match(create.run!, /Title: __GH_AW_GITHUB_EVENT_ISSUE_TITLE__, input: __GH_AW_INPUTS_X__/);
      assert.match(create.run!, /Imported __GH_AW_GITHUB_EVENT_ISSUE_BODY__ text\./);
      assert.match(create.run!, /shell text \$HOME and `\$\(whoami\)` stays text\./);
      assert.match(create.run!, /cat << 'GH_AW_PROMPT_[0-9a-f]+_EOF'/, "a quoted heredoc: $VARS stay text");
      const substitute = (parse(lock).jobs.activation.steps as Step[]).find((s) =>
        s.name === "Substitute placeholders"
      )!;
      assert.equal(substitute.env?.GH_AW_GITHUB_HEAD_REF, "${{ github.head_ref }}");
    }
  });
}

Deno.test("an inlined secret or later-job expression stays literal text, never evaluated in the script", async () => {
  const { lock } = await compileOne(
    "---\non: issues\nengine: copilot\ninlined-imports: true\n---\n# W\nKey ${{ secrets.API_KEY }} here.\n",
  );
  const create = scripts(lock).find((s) => s.step === "Create prompt with built-in context")!;
  assert.ok(create.text.includes("Key ${{ '$' }}{{ secrets.API_KEY }} here."), create.text);
});

Deno.test("a frontmatter value with an event expression that lands in a generated script is refused at its line", async () => {
  const markdown = "---\non: issues\nengine: copilot\nsafe-outputs:\n  create-issue:\n" +
    '    title-prefix: "[${{ github.event.issue.title }}] "\n---\n# W\nDo.\n';
  const diagnostics = await diagnosticsOf(markdown);
  const found = diagnostics.find((d) => d.code === "expression-in-script");
  assert.ok(found, JSON.stringify(diagnostics));
  assert.equal(found.severity, "error");
  assert.deepEqual([found.line, found.column], [6, 21]);
  assert.match(found.message, /github\.event\.issue\.title.*Generate Safe Outputs Config/);
});

Deno.test("every generated script refuses a hostile network, bash tool and MCP server value", async () => {
  const x = "${{ github.event.issue.title }}";
  const markdown = `---\non: issues\nengine: claude\nnetwork:\n  allowed: ["ex${x}.com"]\n` +
    `tools:\n  bash: ["echo ${x}"]\nmcp-servers:\n  foo:\n    command: foo\n    args: ["a${x}"]\n` +
    `    allowed: ["*"]\n---\n# W\nDo.\n`;
  const lines = (await diagnosticsOf(markdown)).filter((d) => d.code === "expression-in-script").map((d) =>
    d.line
  );
  for (const line of [5, 7, 11]) assert.ok(lines.includes(line), `line ${line} reported: ${lines}`);
});

Deno.test("the author's own step scripts and env values are theirs: no refusal", async () => {
  const { lock } = await compileOne(
    "---\non: issues\nengine: copilot\nenv:\n  TITLE: ${{ github.event.issue.title }}\nsteps:\n" +
      '  - name: Mine\n    run: echo "${{ github.event.issue.number }}"\n---\n# W\nDo.\n',
  );
  assert.ok(lock.includes('echo "${{ github.event.issue.number }}"'));
});
