import { assert, assertEquals } from "../test_assert.ts";
import { parseWorkflowFile } from "./parse.ts";
import { didYouMean, validateFrontmatter } from "./schema.ts";

const validate = (fm: string, shared = false) =>
  validateFrontmatter(parseWorkflowFile(".github/workflows/w.md", `---\n${fm}\n---\nBody\n`), shared);
const check = (fm: string, shared = false) => validate(fm, shared).diagnostics;

Deno.test("an unknown top-level key is rejected with its position and a did-you-mean hint", () => {
  const d = check("on: daily\npermisions:\n  contents: read");
  assertEquals(d.length, 1);
  assertEquals([d[0].code, d[0].line, d[0].column], ["unknown-key", 3, 1]);
  assertEquals(d[0].hint, 'did you mean "permissions"?');
});

Deno.test("unknown keys inside on, safe-outputs, tools and engine are rejected", () => {
  const d = check(
    "on:\n  schedul: daily\nsafe-outputs:\n  create-isue: {}\ntools:\n  githb: {}\nengine:\n  id: claude\n  max-turn: 3",
  );
  assertEquals(d.map((x) => x.hint), [
    'did you mean "schedule"?',
    'did you mean "create-issue"?',
    'did you mean "github"?',
    'did you mean "max-turns"?',
  ]);
});

Deno.test("a missing on: is an error for workflows but not for shared imports", () => {
  assertEquals(check("name: x").map((d) => d.code), ["missing-key"]);
  assertEquals(check("tools:\n  edit: {}", true), []);
});

Deno.test("macOS runners are refused with a pointer to Linux runners", () => {
  const d = check("on: daily\nruns-on: macos-latest");
  assertEquals(d[0].code, "macos-runner");
  assert(d[0].hint?.includes("ubuntu-latest"));
});

Deno.test("unknown engines get a suggestion", () => {
  const d = check("on: daily\nengine: claud");
  assertEquals([d[0].code, d[0].hint], ["unknown-engine", 'did you mean "claude"?']);
});

Deno.test("spec keys skills, plugins and footer validate their shapes", () => {
  assertEquals(
    check(
      "on: daily\nskills: [a/b]\nplugins:\n  - acme/tools@v1\n  - plugin: acme/x\n    token: t\nfooter: false",
    ),
    [],
  );
  assertEquals(check("on: daily\nplugins:\n  - not a ref")[0].code, "invalid-value");
});

Deno.test("did-you-mean stays quiet for distant words", () => {
  assertEquals(didYouMean("zzzzzz", ["permissions", "engine"]), undefined);
});

Deno.test("a valid frontmatter becomes the typed model, and unknown keys do not reach it", () => {
  const { diagnostics, frontmatter } = validate(
    "on: daily\nname: Triage\ntimeout-minutes: 12\nstrict: false\nenv:\n  A: x\ntools:\n  bash: true",
  );
  assertEquals(diagnostics, []);
  assertEquals(frontmatter.name, "Triage");
  assertEquals(frontmatter["timeout-minutes"], 12);
  assertEquals(frontmatter.strict, false);
  assertEquals(frontmatter.env, { A: "x" });
  assertEquals(frontmatter.tools, { bash: true });
  const typo = validate("on: daily\nnmae: Triage");
  assert(typo.diagnostics.some((d) => d.code === "unknown-key"));
  assertEquals(Object.keys(typo.frontmatter).includes("nmae"), false);
});

Deno.test("an invalid frontmatter yields errors and the empty model, never the unvalidated values", () => {
  const { diagnostics, frontmatter } = validate("on: daily\nname: Triage\ntimeout-minutes: soon");
  assert(diagnostics.some((d) => d.severity === "error" && d.code === "invalid-value"));
  assertEquals(frontmatter, { on: { triggers: {} }, tools: {} });
});

Deno.test("a shared file without on: validates to a model with the empty trigger map", () => {
  const { diagnostics, frontmatter } = validate("tools:\n  github:\n    toolsets: [issues]", true);
  assertEquals(diagnostics, []);
  assertEquals(frontmatter.on, { triggers: {} });
  assertEquals(frontmatter.tools, { github: { toolsets: ["issues"] } });
});

Deno.test("checkout and cache are always lists when loaded; false stays false", () => {
  const one =
    validate("on: daily\ncheckout:\n  ref: main\n  path: x\ncache:\n  key: k\n  path: p").frontmatter;
  assertEquals(one.checkout, [{ ref: "main", path: "x" }]);
  assertEquals(one.cache, [{ key: "k", path: "p" }]);
  assertEquals(validate("on: daily\ncheckout: false").frontmatter.checkout, false);
  // Kept as written: the lock copies a checkout's inputs in the order the author wrote them.
  assertEquals(
    Object.keys((validate("on: daily\ncheckout:\n  path: x\n  ref: main").frontmatter.checkout || [])[0]),
    ["path", "ref"],
  );
});

Deno.test("safe-outputs is split into global settings and types when loaded", () => {
  const so =
    validate("on: daily\nsafe-outputs:\n  staged: true\n  create-issue:\n  jobs:\n    j: {steps: []}")
      .frontmatter["safe-outputs"];
  assertEquals(so, { global: { staged: true, jobs: { j: { steps: [] } } }, types: { "create-issue": null } });
});

Deno.test("experiments are each {variants, …} when loaded, the bare-list form included", () => {
  const ex =
    validate("on: daily\nexperiments:\n  tone: [a, b]\n  size: {variants: [s, m], metric: m}").frontmatter
      .experiments;
  assertEquals(ex, { tone: { variants: ["a", "b"] }, size: { variants: ["s", "m"], metric: "m" } });
});

Deno.test("a value that fits no form says what is wrong inside the form of its kind, in plain words", () => {
  const d = check("on: daily\ncontainer:\n  image: x\n  options: 3");
  assertEquals(d.map((x) => [x.code, x.line, x.message]), [
    ["invalid-value", 5, 'invalid value at "container.options": expected text, got 3'],
  ]);
  const missing = check("on: daily\nenvironment:\n  url: https://x");
  assertEquals(missing.map((x) => x.message), ['missing required key "environment.name"']);
  const syntax = check("on: daily\nruns-on:\n  group: g\n  x: 1");
  assertEquals(syntax.map((x) => x.code), ["invalid-runs-on"]);
});
