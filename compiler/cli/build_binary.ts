/**
 * `deno task build:awc [--target <triple>] [--output <path>]`: builds the standalone `awc` binary with
 * `deno compile`. Everything awc needs (templates, default pins, schema, tables) is in the module graph,
 * so the binary reads no data files and needs no Node. `deno compile` downloads Deno's runtime (denort)
 * for the target; when that download fails (no network) this says so instead of dumping a stack trace.
 */
import { parseArgs } from "node:util";
import { assetName } from "../commands/upgrade.ts";

/** Deno target triples of the release binaries, by `gh` asset suffix. */
export const TARGETS: Record<string, string> = {
  "linux-amd64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-amd64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "windows-amd64": "x86_64-pc-windows-msvc",
};

/** Permissions baked into the binary: files, network (GitHub API), environment, git and self-upgrade. */
const BINARY_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
];

/** Explains a `deno compile` failure caused by the runtime download, or undefined for other failures. */
export function explainRuntimeDownloadFailure(stderr: string, target: string): string | undefined {
  if (
    !/denort|dl\.deno\.land/.test(stderr) ||
    !/error sending request|dns error|Connect|timed out/i.test(stderr)
  ) {
    return undefined;
  }
  return [
    `awc build: deno compile could not download the Deno runtime (denort) for ${target} from dl.deno.land.`,
    "This machine has no access to it. Options: set DENORT_BIN to a local denort binary for the target,",
    "or build where dl.deno.land is reachable (the release workflow does). Until then run awc from source:",
    "`deno task awc <command>` or `deno run -A compiler/main.ts <command>`.",
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, output: { type: "string" } },
  });
  const suffix = values.target
    ? Object.entries(TARGETS).find(([, triple]) => triple === values.target)?.[0]
    : assetName().replace(/^gh-awc-|\.exe$/g, "");
  if (!suffix) {
    console.error(`unknown --target ${values.target}; one of: ${Object.values(TARGETS).join(", ")}`);
    Deno.exit(2);
  }
  const target = TARGETS[suffix];
  const output = values.output ?? `dist/gh-awc-${suffix}${suffix.startsWith("windows") ? ".exe" : ""}`;
  const args = ["compile", ...BINARY_PERMISSIONS, "--target", target, "--output", output, "compiler/main.ts"];
  console.error(`deno ${args.join(" ")}`);
  const result = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit", stderr: "piped" })
    .output();
  const stderr = new TextDecoder().decode(result.stderr);
  if (!result.success) {
    console.error(explainRuntimeDownloadFailure(stderr, target) ?? stderr);
    Deno.exit(1);
  }
  console.error(`built ${output}`);
}
