/**
 * `awc update-actions`: moves every pin of `.github/aw/actions-lock.json` to the newest stable release
 * (GitHub Releases first, then git tags), in the same major unless `--major`, never a downgrade; rewrites
 * the cache sorted, updates `uses:` tags in workflow Markdown, and recompiles.
 */
import { chooseTarget } from "./target.ts";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { GitHubError } from "../github/client.ts";
import { actionBaseRepo, listVersions, resolveTagSha, type VersionList } from "../github/refs.ts";
import { pickUpgrade } from "../github/semver.ts";
import { ACTIONS_LOCK_PATH, type ActionsLock, formatActionsLock, readActionsLock } from "./actions_lock.ts";
import { reportCompile } from "./compile.ts";
import { writeChangedFiles } from "./compile_results.ts";
import { resolveRepoRoot } from "./repo.ts";

/** The `update-actions` command. */
export const updateActionsCommand: Command = {
  name: "update-actions",
  summary: "Update pinned actions in .github/aw/actions-lock.json to their newest stable releases",
  usage: "",
  description: `
For each cached action: newest stable version from GitHub Releases (then git tags when there are no
releases), same major unless --major, never older than the cached one; the tag is resolved to its commit.
When the API refuses (a limited token), the cached ref is kept with a warning. Then workflow Markdown
\`uses:\` tags are updated and all workflows recompiled.`,
  options: {
    dir: DIR_OPTION,
    major: { type: "boolean", description: "Allow moving to a new major version" },
    "dry-run": { type: "boolean", description: "Show what would change; write nothing" },
    "no-compile": { type: "boolean", description: "Do not recompile after updating" },
  },
  positionals: { min: 0, max: 0 },
  run: async (args: ParsedArgs, deps: CliDeps) => {
    const root = await resolveRepoRoot(deps, args.values.dir as string | undefined);
    return await updateActionsInRepo(deps, root, {
      major: Boolean(args.values.major),
      dryRun: Boolean(args.values["dry-run"]),
      compile: !args.values["no-compile"],
    });
  },
};

/** One pin moved. */
export interface ActionUpdate {
  /** Action path. */
  repo: string;
  /** Old and new version and SHA. */
  from: { version: string; sha: string };
  /** New version and SHA. */
  to: { version: string; sha: string };
}

/** Computes the updates without writing anything. */
async function planActionUpdates(
  deps: CliDeps,
  lock: ActionsLock,
  allowMajor: boolean,
): Promise<{ updates: ActionUpdate[]; lock: ActionsLock }> {
  const client = githubClient(deps);
  const listings = new Map<string, Promise<VersionList>>();
  const entries = Object.entries(lock.entries);
  const progress = deps.output.progress("resolving actions", entries.length);
  const updated: ActionsLock = { ...lock, entries: { ...lock.entries } };
  const updates: ActionUpdate[] = [];
  for (const [key, entry] of entries) {
    progress.tick(key);
    const base = actionBaseRepo(entry.repo);
    try {
      if (!listings.has(base)) listings.set(base, listVersions(client, base));
      const listing = await listings.get(base)!;
      const next = pickUpgrade(listing.tags, entry.version, allowMajor);
      if (!next) continue;
      const sha = listing.shas.get(next) ?? await resolveTagSha(client, base, next);
      if (sha === entry.sha && next === entry.version) continue;
      delete updated.entries[key];
      updated.entries[`${entry.repo}@${next}`] = { repo: entry.repo, version: next, sha };
      updates.push({
        repo: entry.repo,
        from: { version: entry.version, sha: entry.sha },
        to: { version: next, sha },
      });
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      deps.output.warn(`${key}: ${error.message}; keeping the cached ref ${entry.version} (${entry.sha})`);
    }
  }
  progress.done();
  for (const listing of await Promise.all(listings.values()).catch(() => [])) {
    for (const note of listing.notes) deps.output.err(`info: ${note}`);
  }
  return { updates, lock: updated };
}

/** Rewrites `uses: <repo>@<old>` tag references in workflow Markdown; returns the changed files. */
async function updateUsesInMarkdown(root: string, updates: ActionUpdate[], write: boolean) {
  const changed: string[] = [];
  for (const file of await markdownFiles(`${root}/.github/workflows`)) {
    const text = await Deno.readTextFile(`${root}/.github/workflows/${file}`);
    let next = text;
    for (const u of updates) {
      const pattern = new RegExp(
        `(uses:\\s*["']?${escape(u.repo)}@)${escape(u.from.version)}(?=["'\\s]|$)`,
        "gm",
      );
      next = next.replace(pattern, `$1${u.to.version}`);
    }
    if (next !== text) {
      changed.push(`.github/workflows/${file}`);
      if (write) await Deno.writeTextFile(`${root}/.github/workflows/${file}`, next);
    }
  }
  return changed;
}

async function markdownFiles(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) {
        files.push(...await markdownFiles(`${dir}/${entry.name}`, `${prefix}${entry.name}/`));
      } else if (entry.name.endsWith(".md")) files.push(prefix + entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files.sort();
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The whole command, reusable by `upgrade`. */
export async function updateActionsInRepo(
  deps: CliDeps,
  root: string,
  options: { major: boolean; dryRun: boolean; compile: boolean },
): Promise<number> {
  let lock: ActionsLock | undefined;
  try {
    lock = await readActionsLock(root);
  } catch (error) {
    deps.output.err(`error: ${(error as Error).message}`);
    return EXIT.user;
  }
  if (!lock) {
    deps.output.err(`${ACTIONS_LOCK_PATH} not found: nothing to update (run \`awc compile\` first)`);
    return EXIT.ok;
  }
  const { updates, lock: next } = await planActionUpdates(deps, lock, options.major);
  for (const u of updates) {
    deps.output.out(`- ${u.repo}@${u.from.version} ${u.from.sha}`);
    deps.output.out(`+ ${u.repo}@${u.to.version} ${u.to.sha}`);
  }
  const markdown = await updateUsesInMarkdown(root, updates, !options.dryRun);
  for (const file of markdown) {
    deps.output.out(`${options.dryRun ? "would update" : "updated"} uses: in ${file}`);
  }
  if (options.dryRun) {
    deps.output.err(`dry run: ${updates.length} action(s) would be updated; nothing written`);
    return EXIT.ok;
  }
  deps.output.err(
    updates.length ? `updated ${updates.length} action(s) in ${ACTIONS_LOCK_PATH}` : "all actions up to date",
  );
  if (updates.length) await Deno.writeTextFile(`${root}/${ACTIONS_LOCK_PATH}`, formatActionsLock(next));
  if (!options.compile || updates.length === 0) return EXIT.ok;
  // Recompiled for the release the repository's locks are on (else the newest), as `awc compile` does.
  const chosen = await chooseTarget(root, undefined);
  const ghAwVersion = "target" in chosen ? chosen.target.version : undefined;
  const result = await deps.compile({ repoRoot: root, actionMode: "release", ghAwVersion });
  return reportCompile(deps, result, await writeChangedFiles(root, result), false);
}
