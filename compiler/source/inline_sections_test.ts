import { assertEquals } from "../test_assert.ts";
import { bodyBeforeInlineSections } from "./inline_sections.ts";

Deno.test("the body before inline sections stops at the first agent or skill heading", () => {
  const body =
    "# Task\n\nDo it.\n\n## skill: `scoring`\n---\ndescription: x\n---\nrules\n## agent: `a`\nmore\n";
  assertEquals(bodyBeforeInlineSections(body), "# Task\n\nDo it.\n\n");
});

Deno.test("a heading with a placeholder name does not start an inline section", () => {
  const body = "Example:\n```markdown\n## agent: `<agent-name>`\n```\n\ntext\n## agent: `real`\nbody\n";
  assertEquals(
    bodyBeforeInlineSections(body),
    "Example:\n```markdown\n## agent: `<agent-name>`\n```\n\ntext\n",
  );
});

Deno.test("a body without inline sections is returned whole", () => {
  assertEquals(bodyBeforeInlineSections("# Only\n\n## Agent notes\n"), "# Only\n\n## Agent notes\n");
});
