import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";

type Step = { name?: string; env?: Record<string, string>; run?: string };
const SHA = "0123456789abcdef0123456789abcdef01234567";

Deno.test("skills are installed into the engine's skills folder before the agent runs", async () => {
  const { lock } = await compileOne(
    `---\non: workflow_dispatch\nengine: claude\nskills:\n  - skills/jq\n  - acme/agent-skills/skills/review@${SHA}\n---\nHi\n`,
    { "skills/jq/SKILL.md": "---\nname: jq\n---\nUse jq.\n" },
  );
  const steps = parse(lock).jobs.agent.steps as Step[];
  const names = steps.map((s) => s.name);
  const i = names.indexOf("Install skills");
  assert(i > names.indexOf("Restore inline skills from activation artifact"), names.join(", "));
  assert(i < names.findIndex((n) => n?.startsWith("Execute")), "before the agent runs");
  assertEquals(steps[i].env?.GH_AW_SKILL_DIR, ".claude/skills");
  assertIncludes(steps[i].run!, 'cp -R "skills/jq" "$GH_AW_SKILL_DIR/jq"');
  assertIncludes(steps[i].run!, `gh api "repos/acme/agent-skills/tarball/${SHA}"`);
  assertIncludes(steps[i].run!, '--strip-components=3 --wildcards "*/skills/review/*"');
});

Deno.test("unpinned, missing or unreachable skills are compile errors naming the skill", async () => {
  const unpinned = await diagnosticsOf("---\non: workflow_dispatch\nskills: [acme/s/x@main]\n---\nHi\n");
  assert(
    unpinned.some((d) => d.code === "invalid-skill" && d.message.includes("40-hex")),
    JSON.stringify(unpinned),
  );
  const missing = await diagnosticsOf("---\non: workflow_dispatch\nskills: [skills/nope]\n---\nHi\n");
  assert(
    missing.some((d) => d.code === "skill-not-found" && d.message.includes("skills/nope")),
    JSON.stringify(missing),
  );
  const noCheckout = await diagnosticsOf(
    "---\non: workflow_dispatch\ncheckout: false\nskills: [skills/jq]\n---\nHi\n",
    { "skills/jq/SKILL.md": "x" },
  );
  assert(noCheckout.some((d) => d.code === "skill-needs-checkout"), JSON.stringify(noCheckout));
});
