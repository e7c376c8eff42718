/** gh-aw v0.76.1: the release awc has reproduced first (the compiler's own tables are its values). */
import type { GhAwTarget } from "./target.ts";

/** The v0.76.1 target. */
export const V0_76_1: GhAwTarget = {
  version: "v0.76.1",
  pins: {},
  actionTags: {},
  setupCliAction: "github/gh-aw/actions/setup-cli",
  stampsCompilerVersion: false,
  engines: {},
  frontmatterKeys: [],
  queueWorkflowRuns: false,
  emit: {
    helperRequire: "runner-temp",
    indentOnSequences: false,
    trimTrailingWhitespace: false,
    generatedLineFirst: false,
    noFinalBlankLine: false,
  },
  jobs: {
    runtimeFeaturesJobs: [],
    preActivationContentsOnlyForCheckout: false,
    commandCheckFirst: false,
    defaultRolesNeedNoCheck: false,
    stackedPrGuard: false,
    agentOutputFallback: false,
    ghHostZizmorNote: false,
    cacheMemoryRestoreOutputs: false,
    safeOutputs: {
      handlerModule: "safe_output_handler_manager",
      timeoutMinutes: 15,
      aiCreditsEnv: false,
      engineVersionEnv: true,
      itemOutputs: false,
      contentsRead: true,
      noopReportAsIssue: true,
      declaredConfigures: false,
    },
  },
};
