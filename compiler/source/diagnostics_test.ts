import { posix } from "node:path";
import { assertEquals } from "../test_assert.ts";
import { diagnostic, DIAGNOSTICS } from "./diagnostics.ts";

const compilerRoot = new URL("..", import.meta.url).pathname;

Deno.test("a diagnostic takes its severity and default hint from the table, and a given hint wins", () => {
  const at = { file: "a.md", line: 2, column: 3 };
  assertEquals(diagnostic("import-cycle", at, "import cycle: a → a"), {
    ...at,
    severity: "error",
    code: "import-cycle",
    message: "import cycle: a → a",
    hint: DIAGNOSTICS["import-cycle"].hint,
  });
  assertEquals(diagnostic("unsupported-option", at, "m", "h").severity, "warning");
  assertEquals(diagnostic("unsupported-option", at, "m", "h").hint, "h");
  assertEquals("hint" in diagnostic("not-found", at, "m"), false);
});

Deno.test("no compiler module writes a diagnostic code inline instead of using the table", () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(posix.join(compilerRoot, dir))) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory && !["cli", "commands", "github"].includes(e.name)) walk(rel);
      else if (
        e.isFile && rel.endsWith(".ts") && !rel.endsWith("_test.ts") && rel !== "source/diagnostics.ts"
      ) {
        const text = Deno.readTextFileSync(posix.join(compilerRoot, rel));
        if (/\bseverity: "(error|warning)",\s*code:/.test(text)) offenders.push(rel);
      }
    }
  };
  walk("");
  assertEquals(offenders, []);
});
