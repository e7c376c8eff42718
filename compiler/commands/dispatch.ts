/** `awc dispatch <event-type>`: sends a `repository_dispatch` event to start workflows declaring that type. */
import { type Command, DIR_OPTION, EXIT, type ParsedArgs, UsageError } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { GitHubError, tokenFromEnv } from "../github/client.ts";
import { resolveRepoRoot, resolveRepoSlug } from "./repo.ts";
import { dispatchTypes, readWorkflowSources } from "./workflows.ts";
import { isMapping } from "../source/values.ts";

/** The `dispatch` command. */
export const dispatchCommand: Command = {
  name: "dispatch",
  summary: "Send a repository_dispatch event (POST /repos/<owner>/<repo>/dispatches)",
  usage: "<event-type>",
  description: `
Workflows receive the payload as \${{ github.event.client_payload.<field> }} when they declare the type
under on.repository_dispatch.types. The token (GITHUB_TOKEN/GH_TOKEN) needs the classic \`repo\` scope or,
fine-grained, \`contents: write\` on the repository.`,
  options: {
    repo: {
      type: "string",
      short: "R",
      value: "<owner/repo>",
      description: "Target repository (default: origin)",
    },
    payload: { type: "string", short: "p", value: "<json>", description: "client_payload JSON object" },
    dir: DIR_OPTION,
  },
  positionals: { min: 1, max: 1 },
  run: runDispatch,
};

async function runDispatch(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const eventType = args.positionals[0];
  const payload = parsePayload(args.values.payload as string | undefined);
  const root = await resolveRepoRoot(deps, args.values.dir as string | undefined);
  const slug = await resolveRepoSlug(deps, root, args.values.repo as string | undefined);
  if (!slug) {
    if (args.values.repo) throw new UsageError(`--repo must be owner/repo (got "${args.values.repo}")`);
    deps.output.err("error: cannot tell the repository: pass --repo owner/repo");
    return EXIT.user;
  }
  const declaring = (await readWorkflowSources(root)).filter((w) =>
    dispatchTypes(w.frontmatter).includes(eventType)
  );
  if (declaring.length > 0) {
    deps.output.err(`workflows declaring "${eventType}": ${declaring.map((w) => w.path).join(", ")}`);
  } else {
    deps.output.warn(
      `no workflow in ${root}/.github/workflows declares repository_dispatch type "${eventType}" ` +
        `(on.repository_dispatch.types); the event may start nothing`,
    );
  }
  if (!tokenFromEnv(deps.env)) {
    deps.output.err(
      "error: dispatching needs a token: set GITHUB_TOKEN or GH_TOKEN (classic `repo` scope or `contents: write`)",
    );
    return EXIT.user;
  }
  try {
    await githubClient(deps).json(`/repos/${slug}/dispatches`, {
      method: "POST",
      body: { event_type: eventType, client_payload: payload },
    });
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    deps.output.err(`error: ${explain(error, slug)}`);
    return EXIT.user;
  }
  deps.output.out(`dispatched "${eventType}" to ${slug}`);
  return EXIT.ok;
}

function parsePayload(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--payload is not valid JSON: ${(error as Error).message}`);
  }
  if (!isMapping(value)) throw new UsageError("--payload must be a JSON object (it becomes client_payload)");
  return value;
}

function explain(error: GitHubError, slug: string): string {
  const scope = "a classic token needs the `repo` scope; a fine-grained token or GitHub App needs " +
    `\`contents: write\` on ${slug}`;
  if (error.code === "not_found") {
    return `${slug} was not found or the token cannot write to it (GitHub answers 404 to hide private ` +
      `repositories): ${scope}`;
  }
  if (error.code === "forbidden") return `the token may not dispatch events to ${slug} (403): ${scope}`;
  return error.message;
}
