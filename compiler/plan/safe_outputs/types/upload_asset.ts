/** `safe-outputs.upload-asset`. */
import type { SafeOutputType } from "./contract.ts";
import { maxSentence, plainList, strs } from "./sentences.ts";
import { rawString, req } from "./fields.ts";

/** The `upload-asset` safe output. */
export const uploadAsset: SafeOutputType = {
  key: "upload-asset",
  permissions: { contents: "read" },
  implicitMax: null,
  kebabKeys: true,
  handler: (out) => {
    out.branch ??= "assets/${{ github.workflow }}";
    out["max-size"] ??= 10240;
    out["allowed-exts"] ??= [".png", ".jpg", ".jpeg", ".svg"];
  },
  sentences: (c, m) => {
    const kb = Number(c["max-size"] ?? 10240);
    const exts = strs(c, "allowed-exts");
    return [
      ...maxSentence(m, "asset(s) can be uploaded"),
      ...(kb > 0 ? [`Maximum file size: ${kb}KB.`] : []),
      ...(exts.length ? [`Allowed file extensions: ${plainList(exts)}.`] : []),
    ];
  },
  validation: { defaultMax: 10, fields: { path: rawString(undefined, req) } },
};
