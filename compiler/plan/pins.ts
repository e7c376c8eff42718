/**
 * Action pinning: every external `uses:` becomes `<repo>@<40-hex sha> # <version>`. Resolution order:
 * `.github/aw/actions-lock.json` → the injected resolver (GitHub API when online) → built-in pins.
 * `./…` and `docker://` references are never pinned.
 */
import type { ActionResolver, Diagnostic } from "../api.ts";
import { diagnostic } from "../source/diagnostics.ts";

/** Built-in pins (`repo@version` → sha) for the actions the compiler emits itself. */
export const BUILTIN_PINS: Record<string, string> = {
  "actions/cache/restore@v5.0.5": "27d5ce7f107fe9357f9df03efb73ab90386fccae",
  "actions/cache/save@v5.0.5": "27d5ce7f107fe9357f9df03efb73ab90386fccae",
  "actions/cache@v5.0.5": "27d5ce7f107fe9357f9df03efb73ab90386fccae",
  "actions/checkout@v6.0.2": "de0fac2e4500dabe0009e67214ff5f5447ce83dd",
  "actions/create-github-app-token@v3.2.0": "bcd2ba49218906704ab6c1aa796996da409d3eb1",
  "actions/download-artifact@v8.0.1": "3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c",
  "actions/download-artifact@v3.1.0": "a9bc5e6ef2cb54c177f32aa5726adaa15e7e2d59",
  "actions/github-script@v9.0.0": "3a2844b7e9c422d3c10d287c895573f7108da1b3",
  "actions/setup-go@v6.4.0": "4a3601121dd01d1626a1e23e37211e3254c1c06c",
  "actions/setup-node@v6.4.0": "48b55a011bda9f5d6aeb4c2d9c7362e8dae4041e",
  "actions/setup-python@v6.2.0": "a309ff8b426b58ec0e2a45f0f869d46889d02405",
  "actions/upload-artifact@v7.0.1": "043fb46d1a93c77aae656e7c1c64a875d1fc6a0a",
  "actions/upload-artifact@v3.2.2": "c6a366c94c3e0affe28c06c8df20a878f24da3cf",
  "docker/build-push-action@v7.1.0": "bcafcacb16a39f128d818304e6c9c0c18556b85f",
  "docker/setup-buildx-action@v4.0.0": "4d04d5d9486b7bd6fa91e7baf45bbb4f8b9deedd",
  "github/gh-aw-actions/setup@v0.76.1": "46d564922b082d0db93244972e8005ea6904ee5f",
  "github/gh-aw/actions/setup-cli@v0.76.1": "58d1bedbb7200f59c2d224151339e38fd8687d05",
  "github/codeql-action/upload-sarif@v4.35.5": "9e0d7b8d25671d64c341c19c0152d693099fb5ba",
};

/** One `actions-lock.json` entry. */
export interface LockEntry {
  repo: string;
  version: string;
  sha: string;
  [key: string]: unknown;
}

/** The parsed `actions-lock.json`. */
export interface ActionsLock {
  entries: Record<string, LockEntry>;
  containers?: Record<string, { image: string; digest: string; pinned_image?: string }>;
  [key: string]: unknown;
}

/** Parses `actions-lock.json` text (empty lock when absent or invalid). */
export function parseActionsLock(text: string | undefined): ActionsLock {
  if (!text) return { entries: {} };
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && v.entries && typeof v.entries === "object") return v as ActionsLock;
  } catch {
    // fall through
  }
  return { entries: {} };
}

/** Serialises a lock with entries sorted by key (2-space JSON, trailing newline). */
export function stringifyActionsLock(lock: ActionsLock): string {
  const entries: Record<string, LockEntry> = {};
  for (const k of Object.keys(lock.entries).sort()) entries[k] = lock.entries[k];
  const out: ActionsLock = { ...lock, entries };
  if (lock.containers) {
    const c: NonNullable<ActionsLock["containers"]> = {};
    for (const k of Object.keys(lock.containers).sort()) c[k] = lock.containers[k];
    out.containers = c;
  }
  return JSON.stringify(out, null, 2) + "\n";
}

/** A resolved pin. */
export interface Pin {
  repo: string;
  version: string;
  sha: string;
}

/** Resolves pins for one compile run, remembering what was added to the lock. */
export class PinResolver {
  /** Whether resolution added entries to the lock. */
  changed = false;
  /** The built-in pins: the compiler's own table with the target release's laid over it. */
  private readonly builtins: Record<string, string>;
  constructor(
    readonly lock: ActionsLock,
    private readonly resolve?: ActionResolver,
    targetPins: Readonly<Record<string, string>> = {},
  ) {
    this.builtins = { ...BUILTIN_PINS, ...targetPins };
  }

  /** Resolves `repo@version`; undefined (with a diagnostic pushed) when it cannot be pinned. */
  async pin(
    repo: string,
    version: string,
    diags?: Diagnostic[],
    at?: Omit<Diagnostic, "severity" | "message">,
  ): Promise<Pin | undefined> {
    const key = `${repo}@${version}`;
    if (/^[0-9a-f]{40}$/.test(version)) return { repo, version, sha: version };
    const cached = this.lock.entries[key];
    if (cached) return { repo, version, sha: cached.sha };
    if (this.resolve) {
      const sha = await this.resolve(repo, version).catch(() => undefined);
      if (sha && /^[0-9a-f]{40}$/.test(sha)) {
        this.lock.entries[key] = { repo, version, sha };
        this.changed = true;
        return { repo, version, sha };
      }
    }
    const builtin = this.builtins[key];
    if (builtin) return { repo, version, sha: builtin };
    // Highest cached/built-in version with the same major.
    const major = version.split(".")[0];
    const candidates = [
      ...Object.values(this.lock.entries).map((e) => ({ repo: e.repo, version: e.version, sha: e.sha })),
      ...Object.entries(this.builtins).map(([k, sha]) => ({
        repo: k.slice(0, k.lastIndexOf("@")),
        version: k.slice(k.lastIndexOf("@") + 1),
        sha,
      })),
    ].filter((c) => c.repo === repo && c.version.split(".")[0] === major).sort((a, b) =>
      compareSemver(b.version, a.version)
    );
    if (candidates[0]) return { repo, version: candidates[0].version, sha: candidates[0].sha };
    if (diags && at) {
      diags.push(diagnostic("unpinned-action", at, `cannot pin action ${key} to a commit SHA`));
    }
    return undefined;
  }
}

/** Compares `vX.Y.Z` versions numerically. */
export function compareSemver(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(".").map((x) => parseInt(x, 10) || 0);
  const pb = b.replace(/^v/, "").split(".").map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
