/**
 * `awc upgrade`: updates `awc` itself (newest release, then git tags), then the pinned actions (same
 * major), then moves the repository to the newest supported gh-aw release: recompiles every workflow for
 * it and records its action pins in `actions-lock.json`. A standalone binary replaces itself with the release asset
 * `gh-awc-<os>-<arch>` downloaded from `AWC_RELEASES_URL` (default: the releases of `AWC_RELEASES_REPO`)
 * and hands the rest of the upgrade to the new binary.
 */
import { basename } from "node:path";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { listVersions } from "../github/refs.ts";
import { pickUpgrade } from "../github/semver.ts";
import { AWC_RELEASES_REPO } from "../version.ts";
import { reportCompile } from "./compile.ts";
import { writeChangedFiles } from "./compile_results.ts";
import { resolveRepoRoot } from "./repo.ts";
import { updateActionsInRepo } from "./update_actions.ts";
import { recordTargetPins } from "./target.ts";
import { NEWEST_TARGET } from "../targets/mod.ts";

/** The `upgrade` command. */
export const upgradeCommand: Command = {
  name: "upgrade",
  summary: "Upgrade awc, then the pinned actions, then recompile for the newest gh-aw release",
  usage: "",
  options: {
    dir: DIR_OPTION,
    "no-self": { type: "boolean", description: "Do not upgrade awc itself" },
    "no-actions": { type: "boolean", description: "Do not update actions-lock.json" },
    "no-compile": { type: "boolean", description: "Do not recompile" },
  },
  positionals: { min: 0, max: 0 },
  run: runUpgrade,
};

/** The release asset name for this platform, as `gh` precompiled extensions expect. */
export function assetName(os: string = Deno.build.os, arch: string = Deno.build.arch): string {
  const goArch = arch === "aarch64" ? "arm64" : arch === "x86_64" ? "amd64" : arch;
  return `gh-awc-${os}-${goArch}${os === "windows" ? ".exe" : ""}`;
}

async function runUpgrade(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const root = await resolveRepoRoot(deps, args.values.dir as string | undefined);
  if (!args.values["no-self"]) {
    const outcome = await upgradeSelf(deps);
    if (outcome === "failed") return EXIT.user;
    if (outcome === "replaced") return await handOver(deps, args);
  }
  if (!args.values["no-actions"]) {
    const code = await updateActionsInRepo(deps, root, { major: false, dryRun: false, compile: false });
    if (code !== EXIT.ok) return code;
  }
  if (args.values["no-compile"]) return EXIT.ok;
  const target = NEWEST_TARGET;
  const result = await deps.compile({ repoRoot: root, actionMode: "release", ghAwVersion: target.version });
  const code = reportCompile(deps, result, await writeChangedFiles(root, result), false);
  if (code !== EXIT.ok) return code;
  const pinned = await recordTargetPins(root, target, result);
  deps.output.err(
    `gh-aw ${target.version}: ${pinned.length} action pin(s) recorded in .github/aw/actions-lock.json` +
      (pinned.length ? `: ${pinned.join(", ")}` : ""),
  );
  return EXIT.ok;
}

/** Finds a newer `awc` and, for a standalone binary, replaces it. */
async function upgradeSelf(deps: CliDeps): Promise<"current" | "replaced" | "source" | "failed"> {
  const repo = deps.env.AWC_RELEASES_REPO || AWC_RELEASES_REPO;
  const listing = await listVersions(githubClient(deps), repo);
  const newest = pickUpgrade(listing.tags, deps.version, true);
  if (!newest) {
    deps.output.err(`awc ${deps.version} is up to date (${repo}, from ${listing.source})`);
    return "current";
  }
  if (!/^(gh-)?awc/.test(basename(deps.execPath))) {
    deps.output.err(
      `awc ${newest} is available (running ${deps.version} from source): update your checkout, ` +
        `or install the binary with \`gh extension upgrade awc\``,
    );
    return "source";
  }
  const server = deps.env.GITHUB_SERVER_URL?.replace(/\/+$/, "") || "https://github.com";
  const base = (deps.env.AWC_RELEASES_URL || `${server}/${repo}/releases/download`).replace(/\/+$/, "");
  const url = `${base}/${newest}/${assetName()}`;
  const response = await (deps.fetch ?? fetch)(url);
  if (!response.ok) {
    await response.body?.cancel();
    deps.output.err(`error: cannot download ${url}: HTTP ${response.status}`);
    return "failed";
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  await replaceExecutable(deps.execPath, bytes);
  deps.output.err(`upgraded awc ${deps.version} → ${newest}`);
  return "replaced";
}

/** Writes the new binary beside the old one and swaps them (rename works even while the old one runs). */
async function replaceExecutable(path: string, bytes: Uint8Array): Promise<void> {
  const fresh = `${path}.new`;
  const old = `${path}.old`;
  await Deno.writeFile(fresh, bytes, { mode: 0o755 });
  await Deno.remove(old).catch(() => {});
  await Deno.rename(path, old);
  await Deno.rename(fresh, path);
  await Deno.remove(old).catch(() => {}); // Windows keeps a running binary locked; cleaned next time
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o755);
}

/** Runs the rest of the upgrade with the new binary, so its compiler produces the lock files. */
async function handOver(deps: CliDeps, args: ParsedArgs): Promise<number> {
  const forwarded = ["upgrade", "--no-self"];
  for (const flag of ["no-actions", "no-compile"]) if (args.values[flag]) forwarded.push(`--${flag}`);
  if (args.values.dir) forwarded.push("--dir", String(args.values.dir));
  const child = await new Deno.Command(deps.execPath, {
    args: forwarded,
    cwd: deps.cwd,
    env: Object.fromEntries(
      Object.entries(deps.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(child.stdout);
  if (out) deps.output.out(out);
  const err = new TextDecoder().decode(child.stderr);
  if (err) deps.output.err(err);
  return child.code;
}
