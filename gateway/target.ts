/**
 * A target: where a request goes, a configured provider and the model name at that provider, written
 * `provider/model` in configuration, headers, logs and the ledger. The one place that string is split.
 */

/** A provider and the model name it knows. */
export interface Target {
  /** The provider's routing name (`openai`, `bedrock-eu`, ...). */
  readonly provider: string;
  /** The model name at that provider (may itself hold slashes: `meta-llama/Llama-3-8b`). */
  readonly model: string;
}

/** Splits `provider/model` at its first slash; undefined unless both parts are non-empty. */
export function parseTarget(text: string): Target | undefined {
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) return undefined;
  return { provider: text.slice(0, slash), model: text.slice(slash + 1) };
}

/** `provider/model`. */
export function targetName(target: Target): string {
  return `${target.provider}/${target.model}`;
}
