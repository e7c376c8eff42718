/** Reading and writing `.github/aw/actions-lock.json` in gh-aw's exact layout (sorted keys, 2-space indent). */

/** Path of the action cache relative to the repository root. */
export const ACTIONS_LOCK_PATH = ".github/aw/actions-lock.json";

/** One cached action pin. */
export interface ActionLockEntry {
  /** Action path, `owner/repo[/sub]`. */
  repo: string;
  /** Tag the pin was resolved from. */
  version: string;
  /** 40-hex commit SHA. */
  sha: string;
  /** Other fields gh-aw keeps (`released_at`, `inputs`, `action_description`), carried through unchanged. */
  [extra: string]: unknown;
}

/** The whole file. */
export interface ActionsLock {
  /** Pins keyed by `repo@version`. */
  entries: Record<string, ActionLockEntry>;
  /** Container digests, carried through unchanged. */
  containers?: Record<string, unknown>;
  /** Unknown top-level keys, carried through. */
  [extra: string]: unknown;
}

/** Parses the file text; returns an error message naming the problem when it is not a valid cache. */
export function parseActionsLock(text: string): ActionsLock | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `${ACTIONS_LOCK_PATH} is not valid JSON: ${(error as Error).message}`;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return `${ACTIONS_LOCK_PATH} must be a JSON object with an "entries" object`;
  }
  const lock = data as ActionsLock;
  lock.entries ??= {};
  for (const [key, entry] of Object.entries(lock.entries)) {
    if (
      typeof entry?.repo !== "string" || typeof entry?.version !== "string" || typeof entry?.sha !== "string"
    ) {
      return `${ACTIONS_LOCK_PATH}: entry "${key}" needs string "repo", "version" and "sha"`;
    }
  }
  return lock;
}

/** Serialises like gh-aw: maps sorted by key, 2-space indent, HTML characters escaped as Go does, final LF. */
export function formatActionsLock(lock: ActionsLock): string {
  const ordered: Record<string, unknown> = {};
  ordered.entries = sortKeys(lock.entries);
  if (lock.containers && Object.keys(lock.containers).length > 0) {
    ordered.containers = sortKeys(lock.containers);
  }
  for (const [key, value] of Object.entries(lock)) {
    if (key !== "entries" && key !== "containers") ordered[key] = value;
  }
  const json = JSON.stringify(ordered, null, 2)
    .replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
  return json + "\n";
}

function sortKeys<T>(map: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Reads the cache under `repoRoot`; undefined when absent. Throws a readable Error when malformed. */
export async function readActionsLock(repoRoot: string): Promise<ActionsLock | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${repoRoot}/${ACTIONS_LOCK_PATH}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const parsed = parseActionsLock(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}
