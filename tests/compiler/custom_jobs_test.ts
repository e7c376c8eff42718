import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

Deno.test("custom jobs wait for activation, start with the GH_HOST step and note shortened action refs", async () => {
  const md = "---\non: workflow_dispatch\njobs:\n  post:\n    runs-on: ubuntu-latest\n    steps:\n" +
    "      - uses: actions/github-script@v9\n        with:\n          script: console.log(1)\n---\nGo.\n";
  const { lock } = await compileOne(md);
  const post = parse(lock).jobs.post;
  assertEquals(post.needs, "activation");
  assertEquals(post.steps[0].id, "ghes-host-config");
  assertIncludes(lock, "# v9.0.0 (source v9)");
  assert(
    /^# {3}- actions\/github-script@[0-9a-f]{40} # v9\.0\.0 \(source v9\)$/m.test(lock),
    "header lists it",
  );
  assert(lock.endsWith("\n\n"), "locks end with a blank line");
});

Deno.test("a job the prompt reads runs before activation and gates it", async () => {
  const md = "---\non: workflow_dispatch\nif: needs.pre.outputs.go == 'true'\njobs:\n  pre:\n" +
    "    runs-on: ubuntu-latest\n    outputs:\n      go: ${{ steps.s.outputs.go }}\n    steps:\n      - id: s\n" +
    "        run: echo go=true >> $GITHUB_OUTPUT\n---\nValue: ${{ needs.pre.outputs.go }}\n";
  const jobs = parse((await compileOne(md)).lock).jobs;
  assertEquals(jobs.pre.needs, undefined);
  assertEquals(jobs.activation.needs, "pre");
  assertIncludes(String(jobs.activation.if), "needs.pre.outputs.go == 'true'");
});

Deno.test("a job that needs both pre_activation and activation does not run before activation", async () => {
  const md =
    "---\non:\n  workflow_dispatch:\n  roles: [admin]\njobs:\n  early:\n    needs: [pre_activation]\n" +
    "    runs-on: ubuntu-latest\n    steps:\n      - run: echo early\n  late:\n    needs: [pre_activation, activation]\n" +
    "    runs-on: ubuntu-latest\n    outputs:\n      id: ${{ steps.s.outputs.id }}\n    steps:\n      - id: s\n" +
    "        run: echo id=1 >> $GITHUB_OUTPUT\n---\nRelease ${{ needs.late.outputs.id }}\n";
  const jobs = parse((await compileOne(md)).lock).jobs;
  assertEquals(jobs.activation.needs, ["early", "pre_activation"]);
  // The prompt cannot read an output of a job that runs after activation.
  assert(!JSON.stringify(jobs.activation).includes("needs.late.outputs.id"));
});

Deno.test("a safe-output job's script lines of only spaces are written empty, as gh-aw's step conversion does", async () => {
  const md =
    "---\non: workflow_dispatch\nsafe-outputs:\n  jobs:\n    notify:\n      steps:\n        - name: Notify\n" +
    "          run: |\n            const a = 1;\n" +
    "                \n            core.info(String(a));\n---\nHi\n";
  const { lock } = await compileOne(md);
  const job = lock.slice(lock.indexOf("\n  notify:\n"));
  assert(job.includes("const a = 1;\n\n"), job.slice(0, 1500));
  assert(!/\n +\n/.test(job.slice(0, job.indexOf("core.info"))), "no line of only spaces before core.info");
});

Deno.test("a custom job's run script reads its expressions from env, except inside a quoted heredoc", async () => {
  // gh-aw's run-step sanitizer (corpus: daily-geo-optimizer): executable text only, heredoc bodies and
  // comments are not scanned.
  const md = "---\non: workflow_dispatch\njobs:\n  audit:\n    runs-on: ubuntu-latest\n    steps:\n" +
    "      - name: Audit\n        run: |\n          # see ${{ github.sha }}\n" +
    "          audit https://github.com/${{ github.repository }} --run ${{ github.run_id }}\n" +
    "      - name: Meta\n        run: |\n          python3 - <<'EOF'\n          print(\"${{ github.repository }}\")\n" +
    "          EOF\n---\nGo.\n";
  const { lock } = await compileOne(md);
  assertIncludes(
    lock,
    "      - name: Audit\n        run: |\n          # see ${{ github.sha }}\n" +
      "          audit https://github.com/$GH_AW_GITHUB_REPOSITORY --run $GH_AW_GITHUB_RUN_ID\n" +
      "        env:\n          GH_AW_GITHUB_REPOSITORY: ${{ github.repository }}\n" +
      "          GH_AW_GITHUB_RUN_ID: ${{ github.run_id }}\n",
  );
  assertIncludes(lock, "      - name: Meta\n        run: |\n          python3 - <<'EOF'\n");
  assertEquals(parse(lock).jobs.audit.steps[2].env, undefined);
});
