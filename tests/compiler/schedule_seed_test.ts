/**
 * Issue 19 item 6: without --schedule-seed, fuzzy schedules are seeded by `owner/repo` of the `origin`
 * remote, as gh-aw seeds them; a repository without a remote keeps the path alone (deterministic).
 */
import { parse } from "yaml";
import { assertEquals } from "../../compiler/test_assert.ts";
import { compile, originSlug } from "../../compiler/mod.ts";
import { parseSchedule } from "../../compiler/plan/schedule.ts";

const WORKFLOW = "---\non:\n  schedule: daily\n---\n# Report\nWrite it.\n";
const PATH = ".github/workflows/w.md";

function gitConfig(url: string): string {
  return `[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://github.com/up/stream\n` +
    `[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`;
}

async function cronOf(files: Record<string, string>, scheduleSeed?: string): Promise<string> {
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: [PATH],
    scheduleSeed,
    readFile: (path) => Promise.resolve(files[path]),
  });
  return parse(result.workflows[0].lockContent!).on.schedule[0].cron;
}

const expected = (seed: string) => (parseSchedule("daily", seed) as { cron: string }).cron;

Deno.test("originSlug reads owner/repo from https, ssh and scp-like origin URLs", () => {
  assertEquals(originSlug(gitConfig("https://github.com/octo/widgets.git")), "octo/widgets");
  assertEquals(originSlug(gitConfig("git@github.com:octo/widgets.git")), "octo/widgets");
  assertEquals(originSlug(gitConfig("ssh://git@github.com:22/octo/widgets")), "octo/widgets");
  assertEquals(originSlug(gitConfig("https://ghe.corp.example/team/tool/")), "team/tool");
  assertEquals(originSlug("[core]\n\tbare = false\n"), undefined);
  assertEquals(originSlug(undefined), undefined);
});

Deno.test("a fuzzy schedule is seeded by the origin remote's owner/repo when no seed is given", async () => {
  const files = { [PATH]: WORKFLOW, ".git/config": gitConfig("git@github.com:octo/widgets.git") };
  assertEquals(await cronOf(files), expected(`octo/widgets/${PATH}`));
  // The same workflow in another repository fires at another time (the point of scattering).
  const other = { [PATH]: WORKFLOW, ".git/config": gitConfig("https://github.com/acme/tools") };
  assertEquals(await cronOf(other), expected(`acme/tools/${PATH}`));
});

Deno.test("--schedule-seed wins over the remote, and no remote keeps the path seed", async () => {
  const files = { [PATH]: WORKFLOW, ".git/config": gitConfig("git@github.com:octo/widgets.git") };
  assertEquals(await cronOf(files, "given/seed"), expected(`given/seed/${PATH}`));
  assertEquals(await cronOf({ [PATH]: WORKFLOW }), expected(PATH));
});

Deno.test("in a linked worktree (.git is a file) the seed comes from the main repository's config", async () => {
  // `git worktree add` writes `.git` as `gitdir: <main>/.git/worktrees/<name>`, whose `commondir` is `../..`.
  const files = {
    [PATH]: WORKFLOW,
    ".git": "gitdir: /srv/main/.git/worktrees/feature\n",
    "../main/.git/worktrees/feature/commondir": "../..\n",
    "../main/.git/config": gitConfig("git@github.com:octo/widgets.git"),
  };
  const result = await compile({
    repoRoot: "/srv/feature",
    workflows: [PATH],
    readFile: (path) => Promise.resolve(files[path as keyof typeof files]),
  });
  assertEquals(parse(result.workflows[0].lockContent!).on.schedule[0].cron, expected(`octo/widgets/${PATH}`));
  // A relative gitdir resolves against the worktree, and no commondir means the git dir holds the config.
  const relative = {
    [PATH]: WORKFLOW,
    ".git": "gitdir: ../elsewhere.git\n",
    "../elsewhere.git/config": gitConfig("https://github.com/acme/tools"),
  };
  const second = await compile({
    repoRoot: "/srv/feature",
    workflows: [PATH],
    readFile: (path) => Promise.resolve(relative[path as keyof typeof relative]),
  });
  assertEquals(parse(second.workflows[0].lockContent!).on.schedule[0].cron, expected(`acme/tools/${PATH}`));
});
