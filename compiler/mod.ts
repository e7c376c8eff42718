/**
 * Placeholder library entry of the compiler, kept only until the compiler core (branch `compiler`) is
 * merged: its `compile` reports that the core is missing. Resolve merge conflicts in favour of the core.
 */
import type { CompileFunction } from "./api.ts";

/** Reports that the compiler core is not merged yet. */
export const compile: CompileFunction = (_options) =>
  Promise.resolve({
    workflows: [],
    diagnostics: [{
      file: "compiler/mod.ts",
      line: 1,
      column: 1,
      severity: "error",
      message: "compiler core not yet merged",
      hint: "build awc from a branch that contains the compiler core (compiler/mod.ts)",
      code: "core-missing",
    }],
  });
