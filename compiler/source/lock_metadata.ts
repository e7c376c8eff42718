/** Reading the `gh-aw-metadata` / `gh-aw-manifest` header lines of an existing lock file. */

/** The `# gh-aw-metadata: {...}` JSON of a lock file. */
export interface LockMetadata {
  schema_version?: string;
  frontmatter_hash?: string;
  body_hash?: string;
  stop_time?: string;
  compiler_version?: string;
  strict?: boolean;
  agent_id?: string;
  agent_model?: string;
  [key: string]: unknown;
}

function headerJson(lockText: string, prefix: string): Record<string, unknown> | undefined {
  for (const line of lockText.split("\n", 40)) {
    if (line.startsWith(prefix)) {
      try {
        const v = JSON.parse(line.slice(prefix.length).trim());
        return v && typeof v === "object" ? v : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Parses the metadata header of a lock file (also the legacy `# frontmatter-hash:` line); undefined if absent. */
export function readLockMetadata(lockText: string): LockMetadata | undefined {
  const meta = headerJson(lockText, "# gh-aw-metadata:");
  if (meta) return meta as LockMetadata;
  const legacy = /^# frontmatter-hash: ([0-9a-f]{64})$/m.exec(lockText);
  return legacy ? { schema_version: "v0", frontmatter_hash: legacy[1] } : undefined;
}

/** Parses the `# gh-aw-manifest:` header line; undefined if absent. */
export function readLockManifest(lockText: string): Record<string, unknown> | undefined {
  return headerJson(lockText, "# gh-aw-manifest:");
}
