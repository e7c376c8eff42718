/** Version discovery and tag-to-commit resolution for actions and for `awc` itself. */
import { type GitHubClient, GitHubError } from "./client.ts";

/** Where a list of candidate versions came from. */
export interface VersionList {
  /** Tag names found. */
  tags: string[];
  /** `releases` when GitHub Releases had entries, else `tags`. */
  source: "releases" | "tags";
  /** Tag → commit SHA when the listing already told us (the tags API does). */
  shas: Map<string, string>;
  /** Informational notes (for example the fallback from releases to tags). */
  notes: string[];
}

/** The `owner/repo` part of an action path (`actions/cache/restore` → `actions/cache`). */
export function actionBaseRepo(repo: string): string {
  return repo.split("/").slice(0, 2).join("/");
}

/**
 * Lists a repository's version tags: non-draft GitHub Releases first; when there are none, or releases
 * cannot be listed (401/403), the git tags.
 */
export async function listVersions(client: GitHubClient, repo: string, maxItems = 300): Promise<VersionList> {
  const notes: string[] = [];
  try {
    const releases = await client.paginate<{ tag_name: string; draft?: boolean; prerelease?: boolean }>(
      `/repos/${repo}/releases?per_page=100`,
      { maxItems },
    );
    const tags = releases.filter((r) => !r.draft && !r.prerelease).map((r) => r.tag_name);
    if (tags.length > 0) return { tags, source: "releases", shas: new Map(), notes };
    notes.push(`${repo}: no GitHub Releases found, falling back to tag scanning`);
  } catch (error) {
    if (!(error instanceof GitHubError) || !["unauthorized", "forbidden"].includes(error.code)) throw error;
    notes.push(`${repo}: cannot list releases (${error.code}), falling back to tag scanning`);
  }
  const tags = await client.paginate<{ name: string; commit: { sha: string } }>(
    `/repos/${repo}/tags?per_page=100`,
    { maxItems },
  );
  return {
    tags: tags.map((t) => t.name),
    source: "tags",
    shas: new Map(tags.map((t) => [t.name, t.commit.sha])),
    notes,
  };
}

/** Resolves a tag to the commit it names, peeling annotated tags (up to 10 levels). */
export async function resolveTagSha(client: GitHubClient, repo: string, tag: string): Promise<string> {
  const ref = await client.json<{ object: { sha: string; type: string } }>(
    `/repos/${repo}/git/ref/tags/${encodeURIComponent(tag)}`,
  );
  let object = ref.object;
  for (let depth = 0; object.type === "tag" && depth < 10; depth++) {
    const peeled = await client.json<{ object: { sha: string; type: string } }>(
      `/repos/${repo}/git/tags/${object.sha}`,
    );
    object = peeled.object;
  }
  if (object.type !== "commit" || !/^[0-9a-f]{40}$/.test(object.sha)) {
    throw new GitHubError("http_error", 200, `${repo}@${tag} does not point at a commit`);
  }
  return object.sha;
}
