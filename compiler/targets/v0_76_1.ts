/** gh-aw v0.76.1: the release awc has reproduced first (the compiler's own tables are its values). */
import type { GhAwTarget } from "./target.ts";

/** The v0.76.1 target. */
export const V0_76_1: GhAwTarget = {
  version: "v0.76.1",
  pins: {},
  actionTags: {},
  setupCliAction: "github/gh-aw/actions/setup-cli",
  stampsCompilerVersion: false,
  queueWorkflowRuns: false,
  emit: {
    helperRequire: "runner-temp",
    indentOnSequences: false,
    trimTrailingWhitespace: false,
    generatedLineFirst: false,
  },
};
