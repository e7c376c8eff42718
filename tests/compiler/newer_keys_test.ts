import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import {
  NEWER_KEY_RELEASES,
  NEWER_REFUSED_KEYS,
  TOP_LEVEL_KEYS,
} from "../../compiler/source/frontmatter_keys.ts";
import { compileOne, diagnosticsOf, memoryRepo } from "./helpers.ts";
import { compile } from "../../compiler/mod.ts";
import { V0_87_4 } from "../../compiler/targets/v0_87_4.ts";

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

/** The errors of compiling one workflow for a target. */
async function targetErrors(md: string, ghAwVersion: string) {
  const result = await compile({
    repoRoot: "/repo",
    workflows: [".github/workflows/w.md"],
    ghAwVersion,
    readFile: memoryRepo({ ".github/workflows/w.md": md }),
  });
  return [...result.diagnostics, ...result.workflows.flatMap((w) => w.diagnostics)].filter((d) =>
    d.severity === "error"
  );
}

Deno.test("every newer key names the release whose schema has it; v0.87.4's uncompiled keys are in v0.87.4", () => {
  for (const key of Object.keys(NEWER_REFUSED_KEYS)) assert(NEWER_KEY_RELEASES[key] !== undefined, key);
  for (const key of Object.keys(V0_87_4.uncompiledKeys)) {
    assertEquals(NEWER_KEY_RELEASES[key], "v0.87.4", key);
  }
  for (const key of V0_87_4.frontmatterKeys.filter((k) => k in NEWER_REFUSED_KEYS)) {
    assertEquals(NEWER_KEY_RELEASES[key], "v0.87.4", key);
  }
});

Deno.test("under v0.87.4 a key that arrived later is refused naming v0.87.4, one it has but awc does not compile too", async () => {
  const later = await targetErrors("---\non: workflow_dispatch\ngraders: 1\n---\nGo.\n", "v0.87.4");
  assertEquals(later.map((d) => d.code), ["newer-key-unsupported"]);
  assert(
    later[0].message.includes("after v0.87.4") && !later[0].message.includes("after v0.76"),
    later[0].message,
  );
  const known = await targetErrors(
    "---\non: workflow_dispatch\nrunner:\n  topology: arc-dind\n---\nGo.\n",
    "v0.87.4",
  );
  assertEquals(known.map((d) => d.code), ["newer-key-unsupported"]);
  assert(known[0].message.includes("is in gh-aw v0.87.4's frontmatter"), known[0].message);
  assert(known[0].message.includes("ARC runner") && known[0].message.includes("without `runner:`"));
  assertEquals(
    await targetErrors("---\non: workflow_dispatch\nmax-ai-credits: 500\n---\nGo.\n", "v0.87.4"),
    [],
  );
});

Deno.test("under v0.76.1 a key v0.87.4 compiles points at --gh-aw-version v0.87.4", async () => {
  const d = await targetErrors("---\non: workflow_dispatch\nmax-ai-credits: 500\n---\nGo.\n", "v0.76.1");
  assertEquals(d.map((x) => x.code), ["newer-key-unsupported"]);
  assert(d[0].message.includes("gh-aw v0.87.4 has it") && d[0].message.includes("--gh-aw-version v0.87.4"));
  const later = await targetErrors("---\non: workflow_dispatch\nintent: x\n---\nGo.\n", "v0.76.1");
  assert(later[0].message.includes("after v0.87.4"), later[0].message);
});

Deno.test("each key that arrived by v0.87.4 is compiled or refused with a reason by the v0.87.4 target, and documented", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/compiler-differences.md", import.meta.url));
  for (const [key, release] of Object.entries(NEWER_KEY_RELEASES)) {
    assert(
      docs.includes(`| \`${key}\``) || docs.includes(`\`, \`${key}\``),
      `${key} has a row in the per-target table`,
    );
    if (release !== "v0.87.4") continue;
    const compiled = V0_87_4.frontmatterKeys.includes(key);
    const refused = V0_87_4.uncompiledKeys[key] !== undefined;
    assert(compiled !== refused, `${key}: compiled xor refused with a reason under v0.87.4`);
  }
});
