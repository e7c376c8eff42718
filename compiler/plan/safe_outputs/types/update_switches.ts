/** The `update-issue` / `update-pull-request` field switches. */
import type { HandlerConfig, RawTypeConfig } from "./contract.ts";

/** `title:`/`body:`/`status:`… become `allow_*` flags: a bare key or `true` allows the field. */
export function allowSwitches(out: HandlerConfig, raw: RawTypeConfig): void {
  for (const field of ["title", "body", "status", "labels", "assignees", "milestone"]) {
    if (field in raw) {
      const v = raw[field];
      out[`allow_${field}`] = v === null || v === true || (v !== false && v !== undefined);
      delete out[field];
    }
  }
}
