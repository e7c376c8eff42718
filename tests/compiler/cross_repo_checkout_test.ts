/** `checkout:` of another repository and a PR safe output targeting it (`target-repo`). */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const MD =
  "---\non: workflow_dispatch\npermissions:\n  contents: read\ncheckout:\n  - repository: acme/side\n" +
  "    github-token: ${{ secrets.SIDE_PAT }}\n    fetch: [main, refs/pulls/open/*]\n    fetch-depth: 0\n" +
  "safe-outputs:\n  push-to-pull-request-branch:\n    target-repo: acme/side\n" +
  "    github-token: ${{ secrets.SIDE_PAT }}\n---\n# Task\n";

const FETCH_RUN = (git: string) =>
  '          header=$(printf "x-access-token:%s" "${GH_AW_FETCH_TOKEN}" | base64 -w 0)\n' +
  `          ${git} fetch origin '+refs/heads/main:refs/remotes/origin/main' '+refs/pull/*/head:refs/remotes/origin/pull/*/head'\n`;

/** The text of job `name` (up to the next job). */
function job(lock: string, name: string): string {
  const start = lock.indexOf(`\n  ${name}:\n`);
  const next = /\n {2}[a-z_][a-z0-9_-]*:\n/.exec(lock.slice(start + 1));
  return lock.slice(start, next ? start + 1 + next.index : lock.length);
}

Deno.test("the agent checks out its own repository, then the other one and fetches the other one's refs", async () => {
  const { lock } = await compileOne(MD, {}, { actionMode: "dev" });
  const agent = job(lock, "agent");
  assertEquals(
    agent.includes(
      "      - name: Checkout repository\n        uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2\n" +
        "        with:\n          persist-credentials: false\n      - name: Checkout acme/side\n",
    ),
    true,
  );
  assertEquals(
    agent.includes(
      "      - name: Fetch additional refs for acme/side\n        env:\n          GH_AW_FETCH_TOKEN: ${{ secrets.SIDE_PAT }}\n" +
        "        run: |\n" + FETCH_RUN('git -c "http.extraheader=Authorization: Basic ${header}"'),
    ),
    true,
  );
  // The other repository replaced the workspace root, so the actions folder is restored at the end.
  assertEquals(/- name: Restore actions folder\n[\s\S]*$/.test(agent), true);
});

Deno.test("safe_outputs checks out the target repository with the type's token and fetches its refs", async () => {
  const { lock } = await compileOne(MD, {}, { actionMode: "dev" });
  const so = job(lock, "safe_outputs");
  const cond = "(!cancelled()) && needs.agent.result != 'skipped' && " +
    "contains(needs.agent.outputs.output_types, 'push_to_pull_request_branch')";
  assertEquals(so.includes("trusted default branch"), false);
  assertEquals(
    so.includes(
      `      - name: Checkout repository\n        if: ${cond}\n        uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2\n` +
        "        with:\n          repository: acme/side\n" +
        "          ref: ${{ steps.extract-base-branch.outputs.base-branch || github.base_ref || github.event.pull_request.base.ref || github.event.repository.default_branch }}\n" +
        "          token: ${{ secrets.SIDE_PAT }}\n          persist-credentials: false\n          fetch-depth: 0\n",
    ),
    true,
  );
  assertEquals(so.includes('          REPO_NAME: "acme/side"\n'), true);
  assertEquals(so.includes("          GIT_TOKEN: ${{ secrets.SIDE_PAT }}\n"), true);
  assertEquals(
    so.includes(
      `      - name: Fetch additional refs for acme/side\n        if: ${cond}\n        env:\n` +
        "          GH_AW_FETCH_TOKEN: ${{ secrets.SIDE_PAT }}\n        run: |\n" +
        FETCH_RUN('git -c "http.extraheader=Authorization: Basic ${header}"'),
    ),
    true,
  );
  assertEquals(so.includes("          GITHUB_TOKEN: ${{ secrets.SIDE_PAT }}\n        with:\n"), true);
});
