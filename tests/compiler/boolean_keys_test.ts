/**
 * Issue 29 defect 3: wrong types are located errors naming the expected type. Every key gh-aw's schema types
 * as boolean (compiler/source/boolean_keys.ts) refuses `"sometimes"` at its own line and column; a numeric
 * price in the cost table is refused too (prices are strings per the spec).
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { BOOLEAN_KEYS } from "../../compiler/source/boolean_keys.ts";
import { diagnosticsOf } from "./helpers.ts";

/** YAML setting `path` (a `*` becomes the key `x`) to `value`, nested under the required `on:`. */
function frontmatterWith(path: string[], value: string): { text: string; line: number; column: number } {
  const keys = path.map((k) => (k === "*" ? "x" : k));
  const lines = keys.map((k, i) => `${"  ".repeat(i)}${k}:${i === keys.length - 1 ? ` ${value}` : ""}`);
  const head = [
    ...(keys[0] === "on" ? [] : ["on: issues"]),
    ...(keys[0] === "engine" ? [] : ["engine: copilot"]),
  ];
  const all = ["---", ...head, ...lines, "---", "Do it."];
  // 1-based line of the value, and its column (after "key: ").
  const line = head.length + 2 + keys.length - 1;
  const column = 2 * (keys.length - 1) + keys.at(-1)!.length + 3;
  return { text: all.join("\n") + "\n", line, column };
}

Deno.test("every boolean-typed key refuses a string, at the value, naming the expected type", async () => {
  assert(BOOLEAN_KEYS.length > 100);
  const missed: string[] = [];
  for (const key of BOOLEAN_KEYS) {
    const { text, line, column } = frontmatterWith(key.split("."), '"sometimes"');
    const found = (await diagnosticsOf(text)).find((d) =>
      d.severity === "error" && d.line === line && d.column === column &&
      /a boolean \(true or false\)/.test(d.message)
    );
    if (!found) missed.push(key);
  }
  assertEquals(missed, [], "boolean keys that accept a string");
});

Deno.test("fallback-as-issue: a boolean is accepted, a string is a located error", async () => {
  const md = (v: string) =>
    `---\non: issues\nengine: copilot\nsafe-outputs:\n  create-pull-request:\n    fallback-as-issue: ${v}\n---\nx\n`;
  assertEquals((await diagnosticsOf(md("false"))).filter((d) => d.severity === "error"), []);
  const [d] = (await diagnosticsOf(md('"sometimes"'))).filter((d) => d.severity === "error");
  assertEquals([d.file, d.line, d.column, d.code], [".github/workflows/w.md", 6, 24, "invalid-value"]);
  assert(
    d.message.includes("fallback-as-issue") && d.message.includes("a boolean (true or false)"),
    d.message,
  );
  assert(d.message.includes('"sometimes"'), d.message);
});

const COST = (input: string) =>
  "---\non: issues\nengine: copilot\nmodels:\n  providers:\n    anthropic:\n      models:\n        claude-x:\n" +
  `          cost:\n            input: ${input}\n            output: "1e-05"\n---\nx\n`;

Deno.test("a numeric cost-table price is a located error naming the string type", async () => {
  assertEquals((await diagnosticsOf(COST('"3e-06"'))).filter((d) => d.severity === "error"), []);
  const [d] = (await diagnosticsOf(COST("0.000003"))).filter((d) => d.severity === "error");
  assertEquals([d.line, d.column, d.code], [10, 20, "invalid-value"]);
  assert(/models\.providers\.anthropic\.models\.claude-x\.cost\.input/.test(d.message), d.message);
  assert(d.message.includes("must be a string"), d.message);
});

Deno.test("the top-level providers: cost table refuses a numeric price too", async () => {
  const md = "---\non: issues\nengine: copilot\nproviders:\n  anthropic:\n    models:\n      claude-x:\n" +
    '        cost:\n          input: "3e-06"\n          output: 1\n---\nx\n';
  const errors = (await diagnosticsOf(md)).filter((d) => d.severity === "error");
  assert(errors.some((d) => d.line === 10 && d.message.includes("must be a string")), JSON.stringify(errors));
});
