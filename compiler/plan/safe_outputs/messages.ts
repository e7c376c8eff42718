/** `safe-outputs.messages`: the custom texts the runtime posts (footers, run status, failure reports). */
import { isObject } from "../../source/values.ts";

/** The message keys in the order the runtime lists them (others follow in the order written). */
const MESSAGE_KEYS = [
  "footer",
  "footer-install",
  "footer-workflow-recompile",
  "footer-workflow-recompile-comment",
  "staged-title",
  "staged-description",
  "append-only-comments",
  "run-started",
  "run-success",
  "run-failure",
  "detection-failure",
  "agent-failure-issue",
  "agent-failure-comment",
  "pull-request-created",
  "issue-created",
  "commit-pushed",
  "body-header",
];

/** Go-style JSON (HTML characters escaped) of `safe-outputs.messages` with camelCase keys in a fixed order. */
export function messagesJson(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  const src = raw;
  const out: Record<string, unknown> = {};
  const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  for (const k of MESSAGE_KEYS) if (src[k] !== undefined) out[camel(k)] = src[k];
  for (const k of Object.keys(src)) if (!MESSAGE_KEYS.includes(k)) out[camel(k)] = src[k];
  return JSON.stringify(out).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}
