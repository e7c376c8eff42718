/** `awc init`: prepares a repository for agentic workflows. Idempotent: a second run changes nothing. */
import { dirname, resolve } from "node:path";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs, UsageError } from "../cli/command.ts";
import type { CliDeps } from "../cli/context.ts";
import { gitRoot, hostFromRemote, originUrl } from "./git.ts";
import { AW_README, ENGINE_FILES, ENGINES, GITATTRIBUTES_LINE } from "./init_templates.ts";

/** Path of the repository configuration file. */
const AW_JSON_PATH = ".github/workflows/aw.json";

/** The `init` command. */
export const initCommand: Command = {
  name: "init",
  summary: "Prepare this repository for agentic workflows",
  usage: "",
  description: `
Writes .github/aw/README.md (with the Dependabot note), marks lock files as generated in .gitattributes,
writes .github/workflows/aw.json (with "ghes": true when the repository lives on an enterprise server) and
the default engine's files. --engine <id> writes only that engine's files. Safe to run again.`,
  options: {
    dir: DIR_OPTION,
    engine: {
      type: "string",
      short: "e",
      value: "<id>",
      choices: [...ENGINES],
      description: "Engine to prepare",
    },
  },
  positionals: { min: 0, max: 0 },
  run: runInit,
};

async function runInit(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const start = resolve(deps.cwd, (args.values.dir as string | undefined) ?? ".");
  const root = await gitRoot(start);
  if (!root) {
    deps.output.err(`error: ${start} is not inside a git repository: run \`git init\` first`);
    return EXIT.user;
  }
  const engine = (args.values.engine as (typeof ENGINES)[number] | undefined) ?? "copilot";
  if (!ENGINES.includes(engine)) throw new UsageError(`unknown engine "${engine}"`);
  const changes: string[] = [];
  const ensure = async (path: string, content: string) => {
    if (await writeIfDifferent(`${root}/${path}`, content)) changes.push(path);
  };
  await ensure(".github/aw/README.md", AW_README);
  await ensure(".gitattributes", withAttributesLine(await readText(`${root}/.gitattributes`)));
  const ghesHost = await detectEnterpriseHost(deps, root);
  await ensure(AW_JSON_PATH, mergeAwJson(await readText(`${root}/${AW_JSON_PATH}`), Boolean(ghesHost)));
  for (const [path, content] of Object.entries(ENGINE_FILES[engine])) await ensure(path, content);

  if (ghesHost) {
    deps.output.err(`GitHub Enterprise Server detected (${ghesHost}): wrote "ghes": true to ${AW_JSON_PATH}`);
  }
  deps.output.out(
    changes.length ? changes.map((c) => `wrote ${c}`).join("\n") : "already initialised: nothing to do",
  );
  if (await usesDependabotForActions(root)) {
    deps.output.err(
      "note: .github/dependabot.yml updates GitHub Actions: make it ignore the SHA pins in *.lock.yml " +
        "(see .github/aw/README.md); `awc update-actions` manages them",
    );
  }
  deps.output.err("next: write .github/workflows/<name>.md, run `awc compile`, commit the .md and .lock.yml");
  return EXIT.ok;
}

async function readText(path: string): Promise<string | undefined> {
  return await Deno.readTextFile(path).catch(() => undefined);
}

async function writeIfDifferent(path: string, content: string): Promise<boolean> {
  if ((await readText(path)) === content) return false;
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, content);
  return true;
}

/** Adds (or replaces an older form of) the lock-file attributes line. */
function withAttributesLine(current: string | undefined): string {
  const lines = (current ?? "").split("\n").filter((l, i, all) => !(i === all.length - 1 && l === ""));
  const index = lines.findIndex((l) => l.startsWith(".github/workflows/*.lock.yml"));
  if (index >= 0) lines[index] = GITATTRIBUTES_LINE;
  else lines.push(GITATTRIBUTES_LINE);
  return lines.join("\n") + "\n";
}

/** Merges `ghes: true` into aw.json when needed, keeping other keys; `{}` for a new file. */
function mergeAwJson(current: string | undefined, ghes: boolean): string {
  let config: Record<string, unknown> = {};
  if (current !== undefined) {
    try {
      const parsed = JSON.parse(current);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) config = parsed;
    } catch {
      return current; // a malformed file is the compiler's to report; never clobber it
    }
    if (!ghes || config.ghes === true) return current;
  }
  if (ghes) config.ghes = true;
  return JSON.stringify(config, null, 2) + "\n";
}

/** The enterprise host from `GITHUB_SERVER_URL`, `GH_HOST`, or the origin remote; undefined for github.com. */
async function detectEnterpriseHost(deps: CliDeps, root: string): Promise<string | undefined> {
  const candidates: (string | undefined)[] = [];
  if (deps.env.GITHUB_SERVER_URL) candidates.push(hostFromRemote(deps.env.GITHUB_SERVER_URL));
  candidates.push(deps.env.GH_HOST?.trim());
  const origin = await originUrl(root);
  if (origin) candidates.push(hostFromRemote(origin));
  const host = candidates.find((h) => h);
  if (!host || host === "github.com" || host.endsWith(".ghe.com")) return undefined;
  return host;
}

async function usesDependabotForActions(root: string): Promise<boolean> {
  for (const name of ["dependabot.yml", "dependabot.yaml"]) {
    const text = await readText(`${root}/.github/${name}`);
    if (text && /package-ecosystem:\s*["']?github-actions/.test(text)) return true;
  }
  return false;
}
