import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The `pre_activation:` job's text (up to the next job). */
function preActivation(lock: string): string {
  const start = lock.indexOf("\n  pre_activation:\n");
  if (start < 0) return "";
  const next = /\n {2}[a-z_][a-z0-9_-]*:\n/.exec(lock.slice(start + 1));
  return lock.slice(start, next ? start + 1 + next.index : lock.length);
}

Deno.test("user-rate-limit adds the rate limit step, its output to `activated` and actions: read", async () => {
  const md = "---\non:\n  issues:\n    types: [opened]\n  schedule: daily\n  workflow_dispatch:\n" +
    "user-rate-limit:\n  max-runs-per-window: 3\n  window: 30\n---\nGo.\n";
  const pre = preActivation((await compileOne(md)).lock);
  assertEquals(pre.includes("    permissions:\n      actions: read\n      contents: read\n"), true);
  assertEquals(
    pre.includes(
      "      activated: ${{ steps.check_membership.outputs.is_team_member == 'true' && " +
        "steps.check_rate_limit.outputs.rate_limit_ok == 'true' }}\n",
    ),
    true,
  );
  assertEquals(
    pre.includes(
      "      - name: Check user rate limit\n        id: check_rate_limit\n" +
        "        uses: actions/github-script@3a2844b7e9c422d3c10d287c895573f7108da1b3 # v9.0.0\n" +
        '        env:\n          GH_AW_RATE_LIMIT_MAX: "3"\n          GH_AW_RATE_LIMIT_WINDOW: "30"\n' +
        '          GH_AW_RATE_LIMIT_EVENTS: "issues,workflow_dispatch"\n' +
        '          GH_AW_RATE_LIMIT_IGNORED_ROLES: "admin,maintain,write"\n' +
        "        with:\n          github-token: ${{ secrets.GITHUB_TOKEN }}\n",
    ),
    true,
  );
  // The step follows the membership check.
  assertEquals(pre.indexOf("Check team membership") < pre.indexOf("Check user rate limit"), true);
});

Deno.test("only safe events and stop-after need no role check; a skip-if key of `on:` does", async () => {
  const safe = "---\non:\n  schedule: daily\n  workflow_dispatch:\n  stop-after: +1mo\n---\nGo.\n";
  const pre = preActivation((await compileOne(safe)).lock);
  assertEquals(pre.includes("Check stop-time limit"), true);
  assertEquals(pre.includes("check_membership"), false);
  assertEquals(
    pre.includes("      activated: ${{ steps.check_stop_time.outputs.stop_time_ok == 'true' }}\n"),
    true,
  );
  const skip =
    "---\non:\n  schedule: daily\n  workflow_dispatch:\n  skip-if-no-match: is:issue is:open\n---\nGo.\n";
  assertEquals(preActivation((await compileOne(skip)).lock).includes("id: check_membership"), true);
});

Deno.test("skip-if-check-failing adds its check with the configured checks as JSON", async () => {
  const md = "---\non:\n  schedule: daily\n  workflow_dispatch:\n  skip-if-check-failing:\n" +
    "    include: [build, test]\n    allow-pending: true\n---\nGo.\n";
  const pre = preActivation((await compileOne(md)).lock);
  assertEquals(
    pre.includes(
      "      - name: Check skip-if-check-failing\n        id: check_skip_if_check_failing\n" +
        "        uses: actions/github-script@3a2844b7e9c422d3c10d287c895573f7108da1b3 # v9.0.0\n" +
        '        env:\n          GH_AW_SKIP_CHECK_INCLUDE: "[\\"build\\",\\"test\\"]"\n' +
        '          GH_AW_SKIP_CHECK_ALLOW_PENDING: "true"\n        with:\n          script: |\n',
    ),
    true,
  );
  assertEquals(
    pre.includes("&& steps.check_skip_if_check_failing.outputs.skip_if_check_failing_ok == 'true' }}\n"),
    true,
  );
});

Deno.test("on.steps are written name and id first, with whitespace-only script lines emptied", async () => {
  const md = "---\non:\n  workflow_dispatch:\n  steps:\n    - name: Probe\n      id: probe\n" +
    "      uses: actions/github-script@v9\n      with:\n        script: |\n          const a = 1;\n" +
    "            \n          core.info(a);\n---\nGo.\n";
  const { lock } = await compileOne(md);
  const pre = preActivation(lock);
  assertEquals(
    pre.includes(
      "      - name: Probe\n        id: probe\n        uses: actions/github-script@",
    ),
    true,
  );
  assertEquals(pre.includes("            const a = 1;\n\n            core.info(a);\n"), true);
  // The commented copy in `on:` keeps the script as a literal block.
  assertEquals(lock.includes("      # script: |\n        # const a = 1;\n"), true);
});

Deno.test("skip-roles and skip-bots add their checks; a Copilot name stands for all of Copilot's", async () => {
  const md = "---\non:\n  roles: all\n  issues:\n    types: [opened]\n  skip-roles: [admin, write]\n" +
    "  skip-bots: [github-actions, copilot, renovate]\n---\nGo.\n";
  const pre = preActivation((await compileOne(md)).lock);
  assertEquals(
    pre.includes(
      "      activated: ${{ steps.check_skip_roles.outputs.skip_roles_ok == 'true' && " +
        "steps.check_skip_bots.outputs.skip_bots_ok == 'true' }}\n",
    ),
    true,
  );
  assertEquals(
    pre.includes(
      '          GH_AW_SKIP_ROLES: "admin,write"\n          GH_AW_WORKFLOW_NAME: "w"\n        with:\n' +
        "          github-token: ${{ secrets.GITHUB_TOKEN }}\n",
    ),
    true,
  );
  assertEquals(
    pre.includes(
      '          GH_AW_SKIP_BOTS: "github-actions,copilot-swe-agent,Copilot,copilot,@app/copilot-swe-agent,renovate"\n',
    ),
    true,
  );
});

Deno.test("skip-author-associations guards pre_activation per event; forks: '*' drops the fork guard", async () => {
  const md =
    "---\non:\n  roles: all\n  issues:\n    types: [opened]\n  pull_request:\n    types: [opened]\n" +
    '    forks: "*"\n  skip-author-associations:\n    pull_request: [owner, member]\n    issues: [owner]\n' +
    "  skip-roles: [admin]\n---\nGo.\n";
  const { lock } = await compileOne(md);
  const pre = preActivation(lock);
  const guard = (event: string, object: string, list: string) =>
    `(!(github.event_name == '${event}') || !contains(fromJSON('${list}'), github.event.${object}.author_association))`;
  const cond = `${guard("issues", "issue", '["OWNER"]')} && ${
    guard("pull_request", "pull_request", '["OWNER","MEMBER"]')
  }`;
  const ifAt = /\n {4}if: (>\n(?: {6}.*\n)+|.*\n)/.exec(pre)?.[1] ?? "";
  assertEquals(ifAt.replace(/^>\n/, "").split("\n").map((l) => l.trim()).join(" ").trim(), cond);
  assertEquals(lock.includes("github.event.pull_request.head.repo.id == github.repository_id"), false);
});
