/** Issue 19 item 7: GHES is recognised from the `origin` remote's host too, not only GH_HOST/GITHUB_SERVER_URL. */
import assert from "node:assert/strict";
import { compile, originHost } from "../../compiler/mod.ts";

const WORKFLOW = "---\non: issues\nengine: copilot\n---\n# W\nDo.\n";

function gitConfig(url: string): string {
  return `[core]\n\trepositoryformatversion = 0\n[remote "upstream"]\n\turl = https://github.com/a/b\n` +
    `[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`;
}

Deno.test("originHost reads https, ssh and scp-like origin URLs", () => {
  assert.equal(originHost(gitConfig("https://ghe.corp.example/team/repo.git")), "ghe.corp.example");
  assert.equal(originHost(gitConfig("git@ghe.corp.example:team/repo.git")), "ghe.corp.example");
  assert.equal(originHost(gitConfig("ssh://git@GHE.corp.example:2222/team/repo.git")), "ghe.corp.example");
  assert.equal(originHost(gitConfig("https://github.com/octo/repo")), "github.com");
  assert.equal(originHost("[core]\n\tbare = false\n"), undefined);
  assert.equal(originHost(undefined), undefined);
});

Deno.test("a GHES origin without ghes mode: GHESNotSupportedError naming --ghes, no lock", async () => {
  const saved = { GH_HOST: Deno.env.get("GH_HOST"), GITHUB_SERVER_URL: Deno.env.get("GITHUB_SERVER_URL") };
  Deno.env.delete("GH_HOST");
  Deno.env.delete("GITHUB_SERVER_URL");
  try {
    const run = (files: Record<string, string>, ghes?: boolean) =>
      compile({
        repoRoot: "/nonexistent-repo",
        workflows: [".github/workflows/w.md"],
        ghes,
        readFile: (path) => Promise.resolve(files[path]),
      });
    const enterprise = {
      ".github/workflows/w.md": WORKFLOW,
      ".git/config": gitConfig("git@ghe.corp.example:t/r.git"),
    };
    const refused = await run(enterprise);
    assert.equal(refused.workflows.length, 0, "no lock written");
    assert.equal(refused.diagnostics[0].code, "GHESNotSupportedError");
    assert.match(refused.diagnostics[0].message, /ghe\.corp\.example/);
    assert.match(refused.diagnostics[0].hint ?? "", /--ghes/);
    assert.ok((await run(enterprise, true)).workflows[0].lockContent, "--ghes compiles");
    const dotcom = {
      ".github/workflows/w.md": WORKFLOW,
      ".git/config": gitConfig("https://github.com/o/r.git"),
    };
    assert.ok((await run(dotcom)).workflows[0].lockContent, "a github.com origin compiles");
    assert.ok(
      (await run({ ".github/workflows/w.md": WORKFLOW })).workflows[0].lockContent,
      "no remote compiles",
    );
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value !== undefined) Deno.env.set(key, value);
  }
});
