import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { NEWER_REFUSED_KEYS, TOP_LEVEL_KEYS } from "../../compiler/source/frontmatter_keys.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";

Deno.test("every top-level key gh-aw added after v0.76 is refused by name with its reason, never as an unknown key", async () => {
  for (const [key, reason] of Object.entries(NEWER_REFUSED_KEYS)) {
    const md = `---\non: workflow_dispatch\n${key}: 1\n---\nGo.\n`;
    const d = (await diagnosticsOf(md)).filter((x) => x.severity === "error");
    assertEquals(d.map((x) => x.code), ["newer-key-unsupported"], key);
    assertEquals([d[0].line, d[0].column], [3, 1], key);
    assert(d[0].message.includes(`"${key}"`) && d[0].message.includes("after v0.76"), d[0].message);
    assert(d[0].message.includes(reason), key);
  }
});

Deno.test("max-ai-credits is refused with the pinned runtime's reason and the setting that does work", async () => {
  const d = await diagnosticsOf("---\non: workflow_dispatch\nmax-ai-credits: 500\n---\nGo.\n");
  assertEquals(d[0].code, "newer-key-unsupported");
  assert(d[0].message.includes("max-effective-tokens"), d[0].message);
});

Deno.test("a refused newer key and the accepted keys never overlap", () => {
  for (const key of Object.keys(NEWER_REFUSED_KEYS)) {
    assert(!(TOP_LEVEL_KEYS as readonly string[]).includes(key), key);
  }
});

Deno.test("a typo of a known key is still an unknown key with a suggestion", async () => {
  const d = await diagnosticsOf("---\non: workflow_dispatch\nmax-turnz: 3\n---\nGo.\n");
  assertEquals(d[0].code, "unknown-key");
});

Deno.test("max-turns sets the AWF turn cap and wins over its deprecated alias max-runs", async () => {
  const awfMaxRuns = async (extra: string) => {
    const { lock } = await compileOne(`---\non: workflow_dispatch\n${extra}---\nGo.\n`);
    const m = /"maxRuns":(\d+)/.exec(lock);
    return m ? Number(m[1]) : undefined;
  };
  assertEquals(await awfMaxRuns(""), 500);
  assertEquals(await awfMaxRuns("max-turns: 40\n"), 40);
  assertEquals(await awfMaxRuns("max-runs: 70\nmax-turns: 40\n"), 40);
  assertEquals(await awfMaxRuns("max-runs: 70\n"), 70);
  // The lock stays a valid workflow.
  parse((await compileOne("---\non: workflow_dispatch\nmax-turns: 40\n---\nGo.\n")).lock);
});
