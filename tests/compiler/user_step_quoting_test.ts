import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

Deno.test("a multi-line agent step with a comment is double-quoted while the same script in a custom job stays a literal block", async () => {
  const script = "      set -e\n      # why\n      echo hi\n";
  const md = "---\non: workflow_dispatch\nsteps:\n  - name: Prep\n    run: |\n" + script +
    "jobs:\n  side:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Side\n        run: |\n" +
    script.replace(/^/gm, "    ") + "---\nGo.\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes('        run: "set -e\\n# why\\necho hi\\n"\n'), true);
  assertEquals(lock.includes("        run: |\n          set -e\n          # why\n          echo hi\n"), true);
});

Deno.test("a multi-line agent step with only blank lines and plain shell stays a literal block", async () => {
  const md =
    "---\non: workflow_dispatch\nsteps:\n  - name: Prep\n    run: |\n      npm ci\n\n      npm test\n" +
    "---\nGo.\n";
  const { lock } = await compileOne(md);
  // goccy indents every line of a literal block, the empty ones too; as the workflow's last step value it
  // loses its final line break in gh-aw's round trip of `steps:` (plan/user_steps.ts), hence `|-`.
  assertEquals(lock.includes("        run: |-\n          npm ci\n          \n          npm test\n"), true);
});
