/**
 * Protected files of the code-pushing safe outputs (`create-pull-request`, `push-to-pull-request-branch`):
 * files a patch may not touch unless the author allows them, with the engine's own instruction files last.
 */
import type { HandlerConfig, RawTypeConfig } from "./contract.ts";
import { objectOf } from "../../../source/values.ts";

/** Files a code-pushing safe output may not touch unless allowed (engine instruction files appended). */
const PROTECTED_FILES = [
  "package.json",
  "bun.lockb",
  "bunfig.toml",
  "deno.json",
  "deno.jsonc",
  "deno.lock",
  "global.json",
  "NuGet.Config",
  "Directory.Packages.props",
  "mix.exs",
  "mix.lock",
  "go.mod",
  "go.sum",
  "stack.yaml",
  "stack.yaml.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "gradle.properties",
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "npm-shrinkwrap.json",
  "requirements.txt",
  "Pipfile",
  "Pipfile.lock",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "Gemfile",
  "Gemfile.lock",
  "uv.lock",
  "CODEOWNERS",
  "DESIGN.md",
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "SECURITY.md",
  "CODE_OF_CONDUCT.md",
];

/**
 * Writes the patch limits and the protected-file policy into a code-pushing type's handler config.
 * `create-pull-request` asks for a review by default; a push to an existing branch has no default policy.
 */
export function protectCodePush(
  out: HandlerConfig,
  raw: RawTypeConfig,
  /** The engine's instruction files, protected after the common list. */
  instructionFiles: string[],
  createsPullRequest: boolean,
): void {
  const protectedFiles = raw["protected-files"];
  const settings = objectOf(protectedFiles);
  const exclude = Array.isArray(settings.exclude) ? settings.exclude.map(String) : [];
  out.max_patch_size ??= 1024;
  out.protect_top_level_dot_folders ??= true;
  out.protected_files = [...PROTECTED_FILES, ...instructionFiles].filter((f) => !exclude.includes(f));
  const dotFolders = exclude.filter((e) => e.startsWith(".") && e.endsWith("/"));
  if (dotFolders.length) out.protected_dot_folder_excludes = dotFolders;
  const policy = typeof protectedFiles === "string"
    ? protectedFiles
    : typeof settings.policy === "string"
    ? settings.policy
    : undefined;
  if (policy) out.protected_files_policy = policy;
  else if (createsPullRequest) out.protected_files_policy = "request_review";
}
