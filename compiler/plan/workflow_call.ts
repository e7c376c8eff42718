/**
 * The contract a callable workflow (`on.workflow_call`) offers its callers: every secret the lock reads is
 * declared (optional), as gh-aw declares them, so a caller — in another organisation too — can pass the
 * engine's credential and the tokens explicitly; `GITHUB_TOKEN` is the caller's own and cannot be declared.
 */
import { Commented, Styled, type YValue } from "../yaml/writer.ts";

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
  const declared = ((call as Record<string, YValue>).secrets ?? {}) as Record<string, YValue>;
  const names = [...secretsRead(planned)].filter((name) => name !== "GITHUB_TOKEN" && !(name in declared));
  if (names.length === 0) return on;
  const secrets: Record<string, YValue> = { ...declared };
  for (const name of names) secrets[name] = { required: false };
  const sorted = Object.fromEntries(Object.keys(secrets).sort().map((name) => [name, secrets[name]]));
  const withSecrets: Record<string, YValue> = { ...(call as Record<string, YValue>), secrets: sorted };
  return {
    ...on,
    workflow_call: Object.fromEntries(Object.keys(withSecrets).sort().map((k) => [k, withSecrets[k]])),
  };
}
