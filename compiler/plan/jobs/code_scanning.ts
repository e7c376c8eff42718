/**
 * The SARIF path of `create-code-scanning-alert`: the handler in `safe_outputs` writes a SARIF file, a step
 * there uploads it as an artifact, and the `upload_code_scanning_sarif` job hands it to GitHub Code Scanning.
 * The upload is a job of its own so its checkout of the triggering commit cannot disturb the other handlers.
 */
import type { JobPlan, StepPlan } from "../types.ts";
import { type JobCtx, WRITE_TOKEN } from "../steps.ts";
import { plain } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { objectOf } from "../../source/values.ts";

/** The job's name (also its upload step's id). */
export const UPLOAD_SARIF_JOB = "upload_code_scanning_sarif";
/** The artifact carrying the SARIF file from `safe_outputs` to the upload job. */
const SARIF_ARTIFACT = "code-scanning-sarif";
const SARIF_DIR = "/tmp/gh-aw/sarif/";
const SARIF_OUTPUT = "steps.process_safe_outputs.outputs.sarif_file";

/** A type's own settings (`{}` for a bare key). */
function settings(so: SafeOutputsPlan, key: string): Record<string, unknown> {
  return objectOf(so.configs[key]);
}

/** A non-empty string setting, else undefined. */
function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Whether a type only previews (staged globally or on its own): it then gets no write path. */
export function handlerStaged(so: SafeOutputsPlan, key: string): boolean {
  return so.staged || settings(so, key).staged === true;
}

/** Whether alerts are really uploaded: the type is enabled and not staged. */
export function uploadsSarif(so: SafeOutputsPlan): boolean {
  return so.types.includes("create-code-scanning-alert") && !handlerStaged(so, "create-code-scanning-alert");
}

/** The `safe_outputs` step that keeps the handler's SARIF file as an artifact for the upload job. */
export function sarifArtifactStep(ctx: JobCtx, artifactPrefix = ""): StepPlan {
  return {
    name: "Upload SARIF artifact",
    if: plain(`${SARIF_OUTPUT} != ''`),
    uses: plain(ctx.refs.upload),
    with: {
      name: plain(artifactPrefix + SARIF_ARTIFACT),
      path: plain(`\${{ ${SARIF_OUTPUT} }}`),
      "if-no-files-found": "error",
      "retention-days": 1,
    },
  };
}

/**
 * The token the restore checkout uses: the workflow checkout's own, else the code-pushing types', else the
 * safe outputs' (a static reference: a token minted in `safe_outputs` is revoked by now).
 */
function restoreToken(so: SafeOutputsPlan, checkoutToken: string | undefined): string {
  return checkoutToken ?? str(settings(so, "create-pull-request")["github-token"]) ??
    str(settings(so, "push-to-pull-request-branch")["github-token"]) ?? str(so.global["github-token"]) ??
    WRITE_TOKEN;
}

/** Builds `upload_code_scanning_sarif`; `checkoutToken` is the workflow checkout's `github-token`, if any. */
export function uploadSarifJob(
  ctx: JobCtx,
  so: SafeOutputsPlan,
  uploadSarifRef: string,
  checkoutToken?: string,
  artifactPrefix = "",
): JobPlan {
  const restore = restoreToken(so, checkoutToken);
  // upload-sarif names its input `token`: the type's own token, else the safe outputs', else the restore's.
  const token = str(settings(so, "create-code-scanning-alert")["github-token"]) ??
    str(so.global["github-token"]) ??
    restore;
  return {
    needs: "safe_outputs",
    if: plain("needs.safe_outputs.outputs.sarif_file != ''"),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "read", "security-events": "write" },
    "timeout-minutes": 10,
    steps: [
      {
        name: "Restore checkout to triggering commit",
        uses: plain(ctx.refs.checkout),
        with: {
          ref: plain("${{ github.sha }}"),
          token: plain(restore),
          "persist-credentials": false,
          "fetch-depth": 1,
        },
      },
      {
        name: "Download SARIF artifact",
        "continue-on-error": true,
        uses: plain(ctx.refs.download),
        with: { name: plain(artifactPrefix + SARIF_ARTIFACT), path: SARIF_DIR },
      },
      {
        name: "Upload SARIF to GitHub Code Scanning",
        id: UPLOAD_SARIF_JOB,
        uses: plain(uploadSarifRef),
        with: {
          token: plain(token),
          sarif_file: `${SARIF_DIR}code-scanning-alert.sarif`,
          ref: plain("${{ github.ref }}"),
          sha: plain("${{ github.sha }}"),
          "wait-for-processing": true,
        },
      },
    ],
  };
}
