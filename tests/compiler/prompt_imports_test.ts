import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The `{{#runtime-import …}}` lines of the activation prompt, in order. */
function runtimeImports(lock: string): string[] {
  return [...lock.matchAll(/\{\{#runtime-import ([^}]+)\}\}/g)].map((m) => m[1]);
}

const schemaImport = `---
import-schema:
  level:
    type: string
    default: "approved"
---
`;

Deno.test("an import whose inputs all come from import-schema defaults is inlined, not runtime-imported", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\nimports:\n  - uses: shared/base.md\n  - shared/plain.md\n---\n# Task\n",
    {
      ".github/workflows/shared/base.md": schemaImport,
      ".github/workflows/shared/plain.md": "Plain guidance.\n",
    },
  );
  assertEquals(runtimeImports(lock), [".github/workflows/shared/plain.md", ".github/workflows/w.md"]);
  assert(!lock.includes("shared/base.md}}"));
});

Deno.test("a body runtime-import that repeats an import is listed again after the imports", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\nimports:\n  - shared/note.md\n---\n# Task\n\n{{#runtime-import shared/note.md}}\n",
    { ".github/workflows/shared/note.md": "A note.\n" },
  );
  assertEquals(runtimeImports(lock), [
    ".github/workflows/shared/note.md",
    ".github/workflows/shared/note.md",
    ".github/workflows/w.md",
  ]);
});

Deno.test("a body runtime-import inside an inline skill section is not listed in the prompt", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: copilot\n---\n# Task\n\n## skill: `scoring`\n---\ndescription: rules\n---\n\n{{#runtime-import shared/note.md}}\n",
    { ".github/workflows/shared/note.md": "A note.\n" },
  );
  assertEquals(runtimeImports(lock), [".github/workflows/w.md"]);
});

Deno.test("the upload_asset note follows the create-pull-request prompt fragment", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nsafe-outputs:\n  create-pull-request: {}\n  upload-asset: {}\n---\nDo it.\n",
  );
  const fragment = lock.indexOf("safe_outputs_create_pull_request.md");
  const note = lock.indexOf("upload_asset: provide a file path");
  assert(fragment > 0 && note > fragment, "the note comes after the fragment");
});
