/** `awc logs [workflow]`: downloads recent runs of agentic workflows and prints a summary table. */
import { resolve } from "node:path";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs, UsageError } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { analyzeRunDir, runCost, totalTokens } from "./run_analysis.ts";
import { downloadRun, type WorkflowRun } from "./run_download.ts";
import { resolveRepoRoot, resolveRepoSlug } from "./repo.ts";
import { readWorkflowSources, type WorkflowSource } from "./workflows.ts";

/** The `logs` command. */
export const logsCommand: Command = {
  name: "logs",
  summary: "Download recent runs' logs and artifacts into logs/run-<id>/ and summarise them",
  usage: "[workflow]",
  description: `
Lists the latest runs of agentic workflows (those whose file is a .lock.yml), or of the one named, downloads
each run's logs and artifacts into <output>/run-<id>/ (completed runs are cached), and prints status,
duration, tokens, cost (from the workflow's per-model \`cost\` table) and the safe outputs made.`,
  options: {
    repo: { type: "string", short: "R", value: "<owner/repo>", description: "Repository (default: origin)" },
    count: { type: "string", short: "c", value: "<n>", description: "Number of runs (default 10)" },
    output: { type: "string", short: "o", value: "<dir>", description: "Output folder (default logs)" },
    json: { type: "boolean", short: "j", description: "Print the summary as JSON on stdout" },
    dir: DIR_OPTION,
  },
  positionals: { min: 0, max: 1 },
  run: runLogs,
};

/** One row of the summary. */
export interface RunSummary {
  /** Run id. */
  id: number;
  /** Workflow id (lock file name without `.lock.yml`). */
  workflow: string;
  /** Conclusion, or status while running. */
  status: string;
  /** Seconds from start to last update. */
  durationSeconds?: number;
  /** Total tokens. */
  tokens: number;
  /** USD, when the cost table covers the model. */
  cost?: number;
  /** Safe outputs made, by type. */
  safeOutputs: Record<string, number>;
  /** Folder of the download. */
  dir: string;
}

async function runLogs(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const count = Number(args.values.count ?? "10");
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`--count must be a positive integer`);
  const root = await resolveRepoRoot(deps, args.values.dir as string | undefined);
  const slug = await resolveRepoSlug(deps, root, args.values.repo as string | undefined);
  if (!slug) {
    deps.output.err("error: cannot tell the repository: pass --repo owner/repo");
    return EXIT.user;
  }
  const sources = await readWorkflowSources(root);
  const client = githubClient(deps);
  const filter = args.positionals[0];
  let runs: WorkflowRun[];
  if (filter) {
    // Outside a checkout (only --repo) there are no local sources: take the name as the lock file's.
    const id = matchWorkflow(filter, sources) ??
      (sources.length === 0 ? filter.replace(/\.(lock\.yml|md)$/, "") : undefined);
    if (!id) {
      const guess = closest(filter, sources.map((s) => s.id));
      deps.output.err(
        `error: no agentic workflow named "${filter}" in .github/workflows${
          guess ? `; did you mean "${guess}"?` : ""
        }`,
      );
      return EXIT.user;
    }
    runs = await client.paginate<WorkflowRun>(
      `/repos/${slug}/actions/workflows/${id}.lock.yml/runs?per_page=${Math.min(count, 100)}`,
      { itemsKey: "workflow_runs", maxItems: count },
    );
  } else {
    const all = await client.paginate<WorkflowRun>(`/repos/${slug}/actions/runs?per_page=100`, {
      itemsKey: "workflow_runs",
      maxItems: count * 10,
    });
    runs = all.filter((r) => r.path?.endsWith(".lock.yml")).slice(0, count);
  }
  const outDir = resolve(deps.cwd, (args.values.output as string | undefined) ?? "logs");
  const progress = deps.output.progress("downloading runs", runs.length);
  const rows: RunSummary[] = [];
  for (const run of runs) {
    progress.tick(`run ${run.id}`);
    const outcome = await downloadRun(client, slug, run, outDir);
    outcome.warnings.forEach((w) => deps.output.warn(w));
    rows.push(await summarise(run, outcome.dir, sources));
  }
  progress.done();
  if (args.values.json) deps.output.out(JSON.stringify({ repository: slug, runs: rows }, null, 2));
  else deps.output.out(formatTable(rows));
  return EXIT.ok;
}

/** Matches a workflow argument to a local workflow id (file name or display name, case-insensitive). */
function matchWorkflow(filter: string, sources: WorkflowSource[]): string | undefined {
  const wanted = filter.toLowerCase().replace(/\.(lock\.yml|md)$/, "");
  return sources.find((s) => s.id.toLowerCase() === wanted)?.id ??
    sources.find((s) => String(s.frontmatter.name ?? "").toLowerCase() === wanted)?.id;
}

/** Summarises one downloaded run. */
export async function summarise(
  run: WorkflowRun,
  dir: string,
  sources: WorkflowSource[],
): Promise<RunSummary> {
  const analysis = await analyzeRunDir(dir);
  const workflow = (run.path ?? "").split("/").pop()?.replace(/\.lock\.yml$/, "") || run.name || "?";
  const frontmatter = sources.find((s) => s.id === workflow)?.frontmatter ?? {};
  const start = Date.parse(run.run_started_at ?? run.created_at ?? "");
  const end = Date.parse(run.updated_at ?? "");
  return {
    id: run.id,
    workflow,
    status: run.conclusion || run.status || "unknown",
    durationSeconds: Number.isFinite(start) && Number.isFinite(end)
      ? Math.round((end - start) / 1000)
      : undefined,
    tokens: totalTokens(analysis),
    cost: runCost(analysis, frontmatter),
    safeOutputs: analysis.safeOutputs,
    dir,
  };
}

/** Formats seconds as `1m05s`. */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined) return "-";
  return seconds >= 60
    ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
    : `${seconds}s`;
}

function formatTable(rows: RunSummary[]): string {
  if (rows.length === 0) return "no runs of agentic workflows found";
  const header = ["RUN", "WORKFLOW", "STATUS", "DURATION", "TOKENS", "COST", "SAFE OUTPUTS"];
  const body = rows.map((r) => [
    String(r.id),
    r.workflow,
    r.status,
    formatDuration(r.durationSeconds),
    r.tokens ? String(r.tokens) : "-",
    r.cost === undefined ? "-" : `$${r.cost.toFixed(4)}`,
    Object.entries(r.safeOutputs).map(([t, n]) => `${t}×${n}`).join(", ") || "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(header), ...body.map(line)].join("\n");
}

/** The candidate nearest to `word` by edit distance, when close enough to be a typo. */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}
