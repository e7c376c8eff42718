import { assertEquals } from "../test_assert.ts";
import { parseWorkflowFile } from "./parse.ts";
import { headerImportOrder, importPath, type ResolvedImport, resolveImports } from "./imports.ts";
import type { FileReader } from "../api.ts";

const files = (m: Record<string, string>): FileReader => (p) => Promise.resolve(m[p]);
const main = (fm: string) =>
  parseWorkflowFile(".github/workflows/w.md", `---\non: daily\n${fm}\n---\nBody\n`);

Deno.test("local, repository-root and remote imports map to files", () => {
  assertEquals(importPath("shared/a.md", ".github/workflows/w.md").path, ".github/workflows/shared/a.md");
  assertEquals(importPath(".github/agents/x.md", ".github/workflows/w.md").path, ".github/agents/x.md");
  assertEquals(importPath("acme/lib/workflows/r.md@0123", ".github/workflows/w.md"), {
    path: ".github/aw/imports/acme/lib/0123/workflows_r.md",
    remote: true,
  });
});

Deno.test("a cycle between imports is diagnosed on the importing line", async () => {
  const r = await resolveImports(
    main("imports:\n  - shared/a.md"),
    files({
      ".github/workflows/shared/a.md": "---\nimports:\n  - b.md\n---\nA\n",
      ".github/workflows/shared/b.md": "---\nimports:\n  - a.md\n---\nB\n",
    }),
  );
  assertEquals(r.diagnostics.map((d) => d.code), ["import-cycle"]);
});

Deno.test("the same import with different inputs is an error; identical repeats are deduplicated", async () => {
  const read = files({ ".github/workflows/shared/a.md": "---\n---\nA ${{ github.aw.inputs.x }}\n" });
  const bad = await resolveImports(
    main("imports:\n  - uses: shared/a.md\n    with: {x: 1}\n  - uses: shared/a.md\n    with: {x: 2}"),
    read,
  );
  assertEquals(bad.diagnostics.map((d) => d.code), ["import-duplicate"]);
  const ok = await resolveImports(main("imports:\n  - shared/a.md\n  - shared/a.md"), read);
  assertEquals([ok.diagnostics.length, ok.imports.length], [0, 1]);
});

Deno.test("with: inputs are substituted into the imported file", async () => {
  const r = await resolveImports(
    main("imports:\n  - uses: shared/a.md\n    with:\n      team: core"),
    files({ ".github/workflows/shared/a.md": "---\nenv:\n  TEAM: ${{ github.aw.inputs.team }}\n---\nA\n" }),
  );
  assertEquals(r.imports[0].file.data.env, { TEAM: "core" });
});

Deno.test("missing local and uncached remote imports name the path and a fix", async () => {
  const r = await resolveImports(main("imports:\n  - shared/nope.md\n  - acme/lib/x.md@v1"), files({}));
  assertEquals(r.diagnostics.map((d) => [d.code, d.line]), [["import-not-found", 4], [
    "import-not-cached",
    5,
  ]]);
});

Deno.test("the header lists plain imports dependencies-first, choosing the first name when several are ready", () => {
  const imp = (path: string, dependsOn: string[] = []) =>
    ({
      spec: path,
      path,
      displayPath: path,
      file: {} as never,
      frontmatter: { on: { triggers: {} }, tools: {} },
      inputs: {},
      parameterised: false,
      dependsOn,
    }) as ResolvedImport;
  assertEquals(
    headerImportOrder([
      imp("shared/charts.md", ["shared/base.md", "shared/trending.md"]),
      imp("shared/base.md", ["shared/reporting.md", "shared/otlp.md"]),
      imp("shared/trending.md"),
      imp("shared/otlp.md"),
      imp("shared/reporting.md"),
      imp("../skills/x/SKILL.md"),
    ]),
    [
      "../skills/x/SKILL.md",
      "shared/otlp.md",
      "shared/reporting.md",
      "shared/base.md",
      "shared/trending.md",
      "shared/charts.md",
    ],
  );
});
