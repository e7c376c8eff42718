/**
 * Golden tests: compiles tests/compiler/testdata/repo (our own fixtures, release mode, seed
 * `acme/widgets`) and compares each lock with tests/compiler/testdata/golden/. Regenerate with
 * `deno task golden:compiler`. Every golden must also parse with GitHub's workflow parser.
 */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compile } from "../../compiler/mod.ts";
import { workflowErrors } from "./workflow_parser.ts";

const repo = new URL("./testdata/repo", import.meta.url).pathname;
const goldenDir = new URL("./testdata/golden", import.meta.url).pathname;
const update = Deno.env.get("UPDATE_GOLDENS") === "1";

const compileFixtures = () =>
  compile({ repoRoot: repo, scheduleSeed: "acme/widgets", actionMode: "release" });

Deno.test("fixture workflows compile to their golden lock files, byte for byte", async () => {
  const result = await compileFixtures();
  assertEquals(result.diagnostics, []);
  const names = result.workflows.map((w) => w.source.split("/").pop());
  assertEquals(names.includes("shared-only.md"), false, "shared components without on: are not compiled");
  for (const w of result.workflows) {
    assertEquals(w.diagnostics.filter((d) => d.severity === "error"), [], w.source);
    const golden = `${goldenDir}/${w.lockPath.split("/").pop()}`;
    if (update) {
      await Deno.mkdir(goldenDir, { recursive: true });
      await Deno.writeTextFile(golden, w.lockContent!);
      continue;
    }
    assertEquals(w.lockContent, await Deno.readTextFile(golden), `${w.source} differs from its golden`);
  }
});

Deno.test("compiling twice yields identical bytes", async () => {
  const a = await compileFixtures();
  const b = await compileFixtures();
  assertEquals(a.workflows.map((w) => w.lockContent), b.workflows.map((w) => w.lockContent));
});

Deno.test("every golden lock parses with GitHub's workflow parser without errors", async () => {
  let count = 0;
  for await (const e of Deno.readDir(goldenDir)) {
    if (!e.name.endsWith(".lock.yml")) continue;
    count++;
    assertEquals(await workflowErrors(e.name, await Deno.readTextFile(`${goldenDir}/${e.name}`)), [], e.name);
  }
  assertEquals(count >= 9, true, "expected the fixture goldens");
});
