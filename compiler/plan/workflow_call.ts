/**
 * The contract a callable workflow (`on.workflow_call`) offers its callers: every secret the lock reads is
 * declared (optional), as gh-aw declares them, so a caller — in another organisation too — can pass the
 * engine's credential and the tokens explicitly; `GITHUB_TOKEN` is the caller's own and cannot be declared.
 */
import { Commented, Styled, type YValue } from "../yaml/writer.ts";
import { objectOf } from "../source/values.ts";

/** Names of the secrets read by `${{ … }}` expressions anywhere in `values`. */
function secretsRead(values: unknown[]): Set<string> {
  const found = new Set<string>();
  const scan = (text: string) => {
    for (const expression of text.matchAll(/\$\{\{[^}]*\}\}/g)) {
      for (const m of expression[0].matchAll(/(?<![\w.])secrets\.([A-Za-z_][A-Za-z0-9_]*)/g)) found.add(m[1]);
    }
  };
  const visit = (value: unknown): void => {
    if (typeof value === "string") scan(value);
    else if (value instanceof Styled) scan(value.value);
    else if (value instanceof Commented) visit(value.value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        scan(key);
        visit(item);
      }
    }
  };
  values.forEach(visit);
  return found;
}

/**
 * `on` with `workflow_call.secrets` declaring every secret `planned` reads (each `required: false`), the
 * author's own declarations kept as written; `on` itself when the workflow cannot be called.
 */
export function withCallerSecrets(on: Record<string, YValue>, planned: unknown[]): Record<string, YValue> {
  const call = on.workflow_call;
  if (!call || typeof call !== "object" || Array.isArray(call) || call instanceof Styled) return on;
  const declared = objectOf<YValue>(objectOf(call).secrets);
  const names = [...secretsRead(planned)].filter((name) => name !== "GITHUB_TOKEN" && !(name in declared));
  if (names.length === 0) return on;
  const secrets: Record<string, YValue> = { ...declared };
  for (const name of names) secrets[name] = { required: false };
  const sorted = Object.fromEntries(Object.keys(secrets).sort().map((name) => [name, secrets[name]]));
  const withSecrets: Record<string, YValue> = { ...objectOf<YValue>(call), secrets: sorted };
  return {
    ...on,
    workflow_call: Object.fromEntries(Object.keys(withSecrets).sort().map((k) => [k, withSecrets[k]])),
  };
}

/** The results a caller can read, per safe-output type (gh-aw's `buildWorkflowCallOutputsMap`). */
const CALLER_OUTPUTS: Record<string, [string, string][]> = {
  "create-issue": [
    ["created_issue_number", "Number of the first created issue"],
    ["created_issue_url", "URL of the first created issue"],
  ],
  "create-pull-request": [
    ["created_pr_number", "Number of the first created pull request"],
    ["created_pr_url", "URL of the first created pull request"],
  ],
  "add-comment": [
    ["comment_id", "ID of the first added comment"],
    ["comment_url", "URL of the first added comment"],
  ],
  "push-to-pull-request-branch": [
    ["push_commit_sha", "SHA of the pushed commit"],
    ["push_commit_url", "URL of the pushed commit"],
  ],
};

/**
 * `on` with `workflow_call.outputs` exposing the `safe_outputs` job's results of the enabled safe-output
 * types (the first created issue, pull request, comment, pushed commit), the author's own outputs winning a
 * name; `on` itself when the workflow cannot be called or offers none of them.
 */
export function withCallerOutputs(
  on: Record<string, YValue>,
  safeOutputTypes: string[],
): Record<string, YValue> {
  const call = on.workflow_call;
  if (!call || typeof call !== "object" || Array.isArray(call) || call instanceof Styled) return on;
  const generated = safeOutputTypes.flatMap((type) => CALLER_OUTPUTS[type] ?? []);
  if (generated.length === 0) return on;
  const outputs: Record<string, YValue> = {};
  for (const [name, description] of generated) {
    outputs[name] = { description, value: `\${{ jobs.safe_outputs.outputs.${name} }}` };
  }
  Object.assign(outputs, objectOf<YValue>(call).outputs ?? {});
  const sorted = Object.fromEntries(Object.keys(outputs).sort().map((name) => [name, outputs[name]]));
  const withOutputs: Record<string, YValue> = { ...objectOf<YValue>(call), outputs: sorted };
  return {
    ...on,
    workflow_call: Object.fromEntries(Object.keys(withOutputs).sort().map((k) => [k, withOutputs[k]])),
  };
}
