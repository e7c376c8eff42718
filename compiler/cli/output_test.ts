import assert from "node:assert/strict";
import { createOutput, formatDiagnostic } from "./output.ts";

Deno.test("progress is drawn on a terminal's stderr and silent otherwise; stdout stays clean", () => {
  for (const tty of [true, false]) {
    const out: string[] = [];
    const err: string[] = [];
    const output = createOutput({ stdout: (t) => out.push(t), stderr: (t) => err.push(t), stderrIsTty: tty });
    const progress = output.progress("resolving", 2);
    progress.tick("a");
    progress.tick("b");
    progress.done();
    output.out("result");
    assert.deepEqual(out, ["result\n"]);
    if (tty) assert.match(err.join(""), /resolving 1\/2 a.*resolving 2\/2 b/s);
    else assert.deepEqual(err, []);
  }
});

Deno.test("diagnostics render as file:line:col: severity: message with an indented hint", () => {
  assert.equal(
    formatDiagnostic({ file: "a.md", line: 3, column: 5, severity: "error", message: "bad", hint: "fix it" }),
    "a.md:3:5: error: bad\n  hint: fix it",
  );
});
