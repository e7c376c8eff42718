/**
 * Issue 29 defect 1: the agent job reads no secret it was not given. For the golden fixtures and a workflow
 * that gives every safe-output type its own token (and both code-pushing types a CI trigger token), under
 * each engine, the secrets each job and step can read (secret_reach.ts) are checked: the agent job sees
 * only its engine's and the GitHub tools' secrets, those the author wrote outside `safe-outputs:`, and a
 * type's own `github-token` (which gh-aw hands the agent-side safe-outputs config); never a CI trigger token,
 * the safe-outputs job's token nor the built-in write tokens. The CI trigger token the author configured
 * reaches the handler step, and only it.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compile } from "../../compiler/mod.ts";
import { engineFor, REGISTERED_ENGINE_IDS } from "../../compiler/plan/engines/registry.ts";
import { memoryRepo } from "./helpers.ts";
import { secretsIn, secretsPerJob } from "./secret_reach.ts";
import { parse } from "yaml";

/** The types whose configuration takes a `github-token`, with what each needs besides. */
const TYPES: Record<string, string> = {
  "create-issue": "",
  "create-agent-session": "",
  "update-project": "project: https://github.com/orgs/acme/projects/1",
  "create-project": "",
  "create-project-status-update": "project: https://github.com/orgs/acme/projects/1",
  "create-discussion": "",
  "update-discussion": "",
  "close-pull-request": "",
  "mark-pull-request-as-ready-for-review": "",
  "add-comment": "",
  "create-pull-request": "github-token-for-extra-empty-commit: ${{ secrets.CI_PAT_CREATE }}",
  "create-pull-request-review-comment": "",
  "submit-pull-request-review": "",
  "reply-to-pull-request-review-comment": "",
  "resolve-pull-request-review-thread": "",
  "create-code-scanning-alert": "",
  "autofix-code-scanning-alert": "",
  "create-check-run": "",
  "add-labels": "",
  "remove-labels": "",
  "add-reviewer": "",
  "assign-milestone": "",
  "assign-to-agent": "",
  "assign-to-user": "",
  "unassign-from-user": "",
  "link-sub-issue": "",
  "update-issue": "",
  "update-pull-request": "",
  "merge-pull-request": "",
  "push-to-pull-request-branch": "github-token-for-extra-empty-commit: ${{ secrets.CI_PAT_PUSH }}",
  "set-issue-type": "",
  "set-issue-field": "",
  "dispatch-workflow": "workflows: [other]",
  "missing-tool": "",
  "missing-data": "",
  "noop": "",
  "upload-asset": "",
  "upload-artifact": "",
  "report-incomplete": "",
};

const typeToken = (t: string) => `TOK_${t.replace(/-/g, "_").toUpperCase()}`;

function everyTypeWorkflow(engine: string, ciOnlyOnPush = false): string {
  const so = Object.entries(TYPES).map(([t, extra]) => {
    const ci = ciOnlyOnPush && t === "create-pull-request" ? "" : extra;
    return `  ${t}:\n    github-token: \${{ secrets.${typeToken(t)} }}\n${ci ? `    ${ci}\n` : ""}`;
  }).join("");
  return `---\non: issues\nengine: ${engine}\nsafe-outputs:\n  github-token: \${{ secrets.SO_TOKEN }}\n${so}---\nDo it.\n`;
}

/** Built-in write tokens no agent job is given. */
const WRITE_TOKENS = ["GH_AW_AGENT_TOKEN", "GH_AW_CI_TRIGGER_TOKEN", "GH_AW_PROJECT_GITHUB_TOKEN"];
/** The GitHub tools' read tokens every agent job may have. */
const GITHUB_READ = ["GH_AW_GITHUB_MCP_SERVER_TOKEN", "GH_AW_GITHUB_TOKEN", "GITHUB_TOKEN"];

/** What the agent job was given: engine and GitHub secrets, the author's agent-side ones, types' tokens. */
function givenToAgent(markdown: string): Set<string> {
  const fm = parse(markdown.split(/^---$/m)[1]) as Record<string, unknown>;
  const { "safe-outputs": so, ...agentSide } = fm;
  const typeTokens = Object.values((so ?? {}) as Record<string, unknown>)
    .flatMap((
      c,
    ) => (c && typeof c === "object" ? secretsIn((c as Record<string, unknown>)["github-token"]) : []));
  const engineSecrets = REGISTERED_ENGINE_IDS.flatMap((id) => engineFor(id).secrets);
  return new Set([...engineSecrets, ...GITHUB_READ, ...secretsIn(agentSide), ...typeTokens]);
}

async function compileFiles(
  files: Record<string, string>,
  workflow = ".github/workflows/w.md",
  ghAwVersion?: string,
) {
  const result = await compile({
    repoRoot: "/repo",
    workflows: [workflow],
    scheduleSeed: "acme/widgets",
    readFile: memoryRepo(files),
    ghAwVersion,
  });
  const w = result.workflows[0];
  assert(w?.lockContent, JSON.stringify([...result.diagnostics, ...(w?.diagnostics ?? [])]));
  return w.lockContent!;
}

const OTHER = "---\non:\n  workflow_dispatch:\nengine: copilot\n---\nAnother.\n";

// Under both targets: v0.87.4 runs the safe-outputs server as a container inside the agent job's gateway.
for (
  const [engine, target] of ["copilot", "claude", "codex", "gemini"].flatMap((
    e,
  ) => [[e, "v0.76.1"], [e, "v0.87.4"]])
) {
  Deno.test(`${engine} (${target}): the agent job reads no secret it was not given (every safe-output type with a token)`, async () => {
    const md = everyTypeWorkflow(engine);
    const files = { ".github/workflows/w.md": md, ".github/workflows/other.md": OTHER };
    const lock = await compileFiles(files, undefined, target);
    const jobs = secretsPerJob(lock);
    const given = givenToAgent(md);
    const leaked = jobs.agent.all.filter((s) => !given.has(s) || WRITE_TOKENS.includes(s));
    assertEquals(leaked, [], "secrets the agent job reads without being given them");
    for (const s of ["CI_PAT_CREATE", "CI_PAT_PUSH", "SO_TOKEN"]) {
      assertEquals(jobs.agent.all.includes(s), false, `${s} reaches the agent job`);
    }
    // The configured CI trigger token (create-pull-request's first) reaches the handler step, as
    // GH_AW_CI_TRIGGER_TOKEN, and the repository's default secret is not used in its place.
    const holders = Object.entries(jobs).flatMap(([id, j]) =>
      j.steps.filter((s) => s.secrets.includes("CI_PAT_CREATE")).map((s) => `${id}/${s.step}`)
    );
    assertEquals(holders, ["safe_outputs/Process Safe Outputs"]);
    assert(lock.includes("GH_AW_CI_TRIGGER_TOKEN: ${{ secrets.CI_PAT_CREATE }}"));
    assertEquals(jobs.safe_outputs.all.includes("GH_AW_CI_TRIGGER_TOKEN"), false);
  });
}

Deno.test("push-to-pull-request-branch's CI trigger token is used when create-pull-request has none", async () => {
  const md = everyTypeWorkflow("copilot", true);
  const lock = await compileFiles({ ".github/workflows/w.md": md, ".github/workflows/other.md": OTHER });
  assert(lock.includes("GH_AW_CI_TRIGGER_TOKEN: ${{ secrets.CI_PAT_PUSH }}"));
  assertEquals(secretsPerJob(lock).agent.all.includes("CI_PAT_PUSH"), false);
});

Deno.test("without a configured CI trigger token the handler falls back to the repository's secret", async () => {
  const md = "---\non: issues\nengine: copilot\nsafe-outputs:\n  create-pull-request:\n---\nDo it.\n";
  const jobs = secretsPerJob(await compileFiles({ ".github/workflows/w.md": md }));
  assertEquals(jobs.agent.all.includes("GH_AW_CI_TRIGGER_TOKEN"), false);
  const step = jobs.safe_outputs.steps.find((s) => s.step === "Process Safe Outputs");
  assert(step?.secrets.includes("GH_AW_CI_TRIGGER_TOKEN"));
});

for (const target of ["v0.76.1", "v0.87.4"]) {
  Deno.test(`golden fixtures (${target}): no agent job reads a secret it was not given`, async () => {
    const root = new URL("./testdata/repo", import.meta.url).pathname;
    const result = await compile({
      repoRoot: root,
      scheduleSeed: "acme/widgets",
      actionMode: "release",
      ghAwVersion: target,
    });
    assert(result.workflows.length >= 10);
    for (const w of result.workflows) {
      const md = await Deno.readTextFile(`${root}/${w.source}`);
      const jobs = secretsPerJob(w.lockContent!);
      const given = givenToAgent(md);
      const leaked = (jobs.agent?.all ?? []).filter((s) => !given.has(s) || WRITE_TOKENS.includes(s));
      assertEquals(leaked, [], `${w.source}: secrets the agent job reads without being given them`);
    }
  });
}
