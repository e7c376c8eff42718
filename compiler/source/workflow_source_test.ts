import { assertEquals } from "../test_assert.ts";
import { loadWorkflowSource } from "./workflow_source.ts";
import type { FileReader } from "../api.ts";

const files = (m: Record<string, string>): FileReader => (p) => Promise.resolve(m[p]);

Deno.test("a workflow loaded again from the same text gets its own data, untouched by the first load's changes", async () => {
  const read = files({
    ".github/workflows/w.md": "---\non: daily\ntools:\n  github:\n    toolsets: [repos]\n---\nDo it\n",
  });
  const first = await loadWorkflowSource(".github/workflows/w.md", read, [], []);
  // The parse is remembered by text: a caller changing its copy must not reach the next load.
  const dataOf = (f: unknown) => (f as { data: Record<string, Record<string, unknown>> }).data;
  dataOf(first!.file).tools.github = "changed";
  const second = await loadWorkflowSource(".github/workflows/w.md", read, [], []);
  assertEquals(dataOf(second!.file).tools, { github: { toolsets: ["repos"] } });
  assertEquals(second!.file.locate(["tools", "github"], true), [4, 3]);
});
