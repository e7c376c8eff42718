/** The activation job's prompt assembly: GitHub context, tool guidance, extracted expressions. */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The text of the activation step named `name` (from its `- name:` line to the next step). */
function activationStep(lock: string, name: string): string {
  const activation = lock.slice(lock.indexOf("\n  activation:"), lock.indexOf("\n  agent:"));
  const start = activation.indexOf(`- name: ${name}\n`);
  assert(start >= 0, `step ${name} exists`);
  const next = activation.indexOf("\n      - ", start + 1);
  return activation.slice(start, next < 0 ? undefined : next);
}

/** The env keys of an activation step, in order. */
function envKeys(step: string): string[] {
  const env = step.slice(step.indexOf("        env:\n"));
  return [...env.matchAll(/^ {10}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
}

Deno.test("without the GitHub tool the prompt has no GitHub context block and no GitHub tool guidance", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\ntools:\n  github: false\n---\nReport on ${{ github.repository }}.\n",
  );
  const step = activationStep(lock, "Create prompt with built-in context");
  assert(!step.includes("<github-context>"));
  assert(!step.includes("github_mcp_tools_with_safeoutputs_prompt.md"));
  assert(!step.includes("cli_proxy_with_safeoutputs_prompt.md"));
  assertEquals(envKeys(step), ["GH_AW_PROMPT", "GH_AW_SAFE_OUTPUTS", "GH_AW_GITHUB_REPOSITORY"]);
});

Deno.test("a bare `github:` keeps the MCP guidance although an import sets mode gh-proxy", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\nimports:\n  - shared/gh.md\ntools:\n  github:\n---\nDo it.\n",
    { ".github/workflows/shared/gh.md": "---\ntools:\n  github:\n    mode: gh-proxy\n---\n" },
  );
  const step = activationStep(lock, "Create prompt with built-in context");
  assert(step.includes("github_mcp_tools_with_safeoutputs_prompt.md"));
  assert(!step.includes("cli_proxy_with_safeoutputs_prompt.md"));
});

Deno.test("codex falls back to the MCP guidance for an imported gh-proxy mode; claude keeps the CLI one", async () => {
  const files = { ".github/workflows/shared/gh.md": "---\ntools:\n  github:\n    mode: gh-proxy\n---\n" };
  const wf = (engine: string) =>
    `---\non: workflow_dispatch\nengine: ${engine}\nimports:\n  - shared/gh.md\ntools:\n  github:\n    toolsets: [repos]\n---\nDo it.\n`;
  const codex = activationStep(
    (await compileOne(wf("codex"), files)).lock,
    "Create prompt with built-in context",
  );
  assert(codex.includes("github_mcp_tools_with_safeoutputs_prompt.md"));
  const claude = activationStep(
    (await compileOne(wf("claude"), files)).lock,
    "Create prompt with built-in context",
  );
  assert(claude.includes("cli_proxy_with_safeoutputs_prompt.md"));
});

Deno.test("inlined imports lose their HTML comments; a runtime-import macro's file is embedded too", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\ninlined-imports: true\nimports:\n  - shared/doc.md\n---\n" +
      "\nBody text.\n\n{{#runtime-import shared/note.md}}\n",
    {
      ".github/workflows/shared/doc.md": "---\ntools:\n  bash: true\n---\n\n<!--\nUsage notes.\n-->\n",
      ".github/workflows/shared/note.md": "A note.\n",
    },
  );
  const step = activationStep(lock, "Create prompt with built-in context");
  assert(!step.includes("Usage notes."));
  assert(!step.includes("<!--"));
  const user = step.slice(step.indexOf("</system>\n"));
  assertEquals(
    user.split("\n").slice(0, 8).map((l) => l.trim()),
    ["</system>", "", "A note.", "", "Body text.", "", "{{#runtime-import shared/note.md}}", ""],
  );
});

Deno.test("inlined: an experiment condition becomes an expression placed after the experiment values", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\ninlined-imports: true\nexperiments:\n  depth:\n    variants: [a, b]\n---\n" +
      "Repo ${{ github.repository }}.\n{{#if experiments.depth == 'b'}}\nDeep.\n{{/if}}\n",
  );
  const step = activationStep(lock, "Create prompt with built-in context");
  assert(step.includes("{{#if __GH_AW_EXPR_"), "the condition reads a placeholder");
  const interpolate = activationStep(lock, "Interpolate variables and render templates");
  const keys = envKeys(interpolate).slice(2);
  assertEquals(keys[0], "GH_AW_EXPERIMENTS_DEPTH");
  assert(/^GH_AW_EXPR_[0-9A-F]{8}$/.test(keys[1]), keys[1]);
  assertEquals(keys[2], "GH_AW_GITHUB_REPOSITORY");
  assert(interpolate.includes("${{ steps.pick-experiment.outputs.depth == 'b' }}"));
});

Deno.test("runtime-imported files' expressions are not passed to the prompt; an import with inputs' are", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\nimports:\n  - shared/plain.md\n  - uses: shared/param.md\n" +
      "    with:\n      label: bug\n---\nMain for ${{ github.actor }}.\n",
    {
      ".github/workflows/shared/plain.md": "Run ${{ github.run_number }}.\n",
      ".github/workflows/shared/param.md":
        "---\nimport-schema:\n  label:\n    type: string\n---\nLabel for ${{ github.event.issue.number }}.\n",
    },
  );
  const interpolate = activationStep(lock, "Interpolate variables and render templates");
  assertEquals(envKeys(interpolate).slice(2), ["GH_AW_GITHUB_EVENT_ISSUE_NUMBER", "GH_AW_GITHUB_ACTOR"]);
  assert(!lock.includes("GH_AW_GITHUB_RUN_NUMBER"));
});

Deno.test("the prompt's Tools line ends with the author's safe-output jobs, scripts and actions", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\nsafe-outputs:\n  add-comment:\n" +
      "  scripts:\n    post-note:\n      description: Post a note\n      script: |\n        return async () => ({ success: true });\n" +
      "  actions:\n    add-smoked-label:\n      uses: acme/add-labels@v1.1.3\n      description: Add a label\n" +
      "---\nDo it.\n",
    {
      // The action's pin and inputs come from the actions lock.
      ".github/aw/actions-lock.json": JSON.stringify({
        entries: {
          "acme/add-labels@v1.1.3": {
            repo: "acme/add-labels",
            version: "v1.1.3",
            sha: "c96b68fec76a0987cd93957189e9abd0b9a72ff1",
            inputs: { labels: { description: "The labels to add.", required: true } },
          },
        },
      }),
    },
  );
  const step = activationStep(lock, "Create prompt with built-in context");
  assert(
    step.includes("Tools: add_comment, missing_tool, missing_data, noop, post_note, add_smoked_label\n"),
    step,
  );
});
