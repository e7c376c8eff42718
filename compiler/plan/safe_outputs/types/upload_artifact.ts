/** `safe-outputs.upload-artifact`. */
import type { SafeOutputType } from "./contract.ts";
import { objectOf } from "../../../source/values.ts";

/** The `upload-artifact` safe output. */
export const uploadArtifact: SafeOutputType = {
  key: "upload-artifact",
  offersTool: false,
  implicitMax: null,
  kebabKeys: true,
  handler: (out) => {
    const defaults = objectOf(out.defaults);
    if (defaults["if-no-files"] !== undefined) out["default-if-no-files"] = defaults["if-no-files"];
    delete out.defaults;
    out["max-size-bytes"] ??= 104857600;
    out["max-uploads"] ??= 1;
    out["retention-days"] ??= 7;
  },
  jobOutputs: (handler) => {
    const outputs: Record<string, string> = { upload_artifact_count: "upload_artifact_count" };
    const slots = Number(handler["max-uploads"] ?? 1) || 1;
    for (let i = 0; i < slots; i++) outputs[`upload_artifact_slot_${i}_tmp_id`] = `slot_${i}_tmp_id`;
    return outputs;
  },
};
