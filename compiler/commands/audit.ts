/** `awc audit <run-id|run-url>`: one run in depth — jobs, timings, firewall blocks, MCP calls, safe outputs, errors. */
import { resolve } from "node:path";
import { type Command, DIR_OPTION, EXIT, type ParsedArgs, UsageError } from "../cli/command.ts";
import { type CliDeps, githubClient } from "../cli/context.ts";
import { analyzeRunDir, type RunAnalysis, runCost, totalTokens } from "./run_analysis.ts";
import { downloadRun, type WorkflowRun } from "./run_download.ts";
import { formatDuration } from "./logs.ts";
import { resolveRepoRoot, resolveRepoSlug } from "./repo.ts";
import { readWorkflowSources } from "./workflows.ts";

/** The `audit` command. */
export const auditCommand: Command = {
  name: "audit",
  summary: "Audit one run: jobs, timings, firewall blocks, MCP tool calls, safe outputs, errors",
  usage: "<run-id|run-url>",
  options: {
    repo: { type: "string", short: "R", value: "<owner/repo>", description: "Repository for a bare run id" },
    output: { type: "string", short: "o", value: "<dir>", description: "Download folder (default logs)" },
    json: { type: "boolean", short: "j", description: "Print the report as JSON on stdout" },
    dir: DIR_OPTION,
  },
  positionals: { min: 1, max: 1 },
  run: runAudit,
};

interface Job {
  name: string;
  status?: string;
  conclusion?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
  steps?: { name: string; conclusion?: string | null; number?: number }[];
}

/** Splits `123`, or `https://<host>/<owner>/<repo>/actions/runs/123[/job/…]`, into repository and id. */
function parseRunReference(ref: string): { slug?: string; id: number } | undefined {
  if (/^\d+$/.test(ref)) return { id: Number(ref) };
  const match = ref.match(/^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)/);
  return match ? { slug: match[1], id: Number(match[2]) } : undefined;
}

async function runAudit(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const ref = parseRunReference(args.positionals[0]);
  if (!ref) throw new UsageError(`"${args.positionals[0]}" is neither a run id nor a run URL`);
  const root = await resolveRepoRoot(deps, args.values.dir as string | undefined);
  const slug = ref.slug ?? await resolveRepoSlug(deps, root, args.values.repo as string | undefined);
  if (!slug) {
    deps.output.err("error: cannot tell the repository: pass --repo owner/repo or a run URL");
    return EXIT.user;
  }
  const client = githubClient(deps);
  const run = await client.json<WorkflowRun>(`/repos/${slug}/actions/runs/${ref.id}`);
  const jobs = await client.paginate<Job>(`/repos/${slug}/actions/runs/${ref.id}/jobs?per_page=100`, {
    itemsKey: "jobs",
  });
  const outDir = resolve(deps.cwd, (args.values.output as string | undefined) ?? "logs");
  const outcome = await downloadRun(client, slug, run, outDir);
  outcome.warnings.forEach((w) => deps.output.warn(w));
  const analysis = await analyzeRunDir(outcome.dir);
  const workflow = (run.path ?? "").split("/").pop()?.replace(/\.lock\.yml$/, "") ?? "";
  const frontmatter = (await readWorkflowSources(root)).find((s) => s.id === workflow)?.frontmatter ?? {};
  const report = buildReport(slug, run, jobs, analysis, runCost(analysis, frontmatter), outcome.dir);
  deps.output.out(args.values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  return EXIT.ok;
}

function seconds(from?: string | null, to?: string | null): number | undefined {
  const a = Date.parse(from ?? "");
  const b = Date.parse(to ?? "");
  return Number.isFinite(a) && Number.isFinite(b) ? Math.round((b - a) / 1000) : undefined;
}

/** The audit report (the `--json` shape). */
function buildReport(
  slug: string,
  run: WorkflowRun,
  jobs: Job[],
  analysis: RunAnalysis,
  cost: number | undefined,
  dir: string,
) {
  const failedSteps = jobs.flatMap((j) =>
    (j.steps ?? []).filter((s) => s.conclusion === "failure").map((s) => `${j.name}: step "${s.name}" failed`)
  );
  return {
    repository: slug,
    run: {
      id: run.id,
      workflow: run.name,
      path: run.path,
      event: run.event,
      status: run.conclusion || run.status,
      durationSeconds: seconds(run.run_started_at ?? run.created_at, run.updated_at),
      url: run.html_url,
    },
    engine: analysis.engine,
    model: analysis.model,
    tokens: { total: totalTokens(analysis), byModel: analysis.tokensByModel },
    cost,
    jobs: jobs.map((j) => ({
      name: j.name,
      status: j.conclusion || j.status,
      durationSeconds: seconds(j.started_at, j.completed_at),
    })),
    firewallBlocked: analysis.firewallBlocked,
    mcpToolCalls: analysis.mcpToolCalls,
    safeOutputs: analysis.safeOutputs,
    errors: [...failedSteps, ...analysis.errors],
    dir,
  };
}

function formatReport(r: ReturnType<typeof buildReport>): string {
  const lines = [
    `Run ${r.run.id} of ${r.run.workflow ?? r.run.path} (${r.repository})`,
    `  status: ${r.run.status}   duration: ${formatDuration(r.run.durationSeconds)}   event: ${
      r.run.event ?? "-"
    }`,
    `  engine: ${r.engine ?? "-"}   model: ${r.model ?? "-"}   tokens: ${r.tokens.total || "-"}   cost: ${
      r.cost === undefined ? "-" : `$${r.cost.toFixed(4)}`
    }`,
    `  files: ${r.dir}`,
    "",
    "Jobs:",
    ...(r.jobs.length
      ? r.jobs.map((j) =>
        `  ${j.name.padEnd(24)} ${String(j.status).padEnd(10)} ${formatDuration(j.durationSeconds)}`
      )
      : ["  (none)"]),
  ];
  const section = (title: string, map: Record<string, number>) => {
    lines.push("", `${title}:`);
    const entries = Object.entries(map).sort((a, b) => b[1] - a[1]);
    lines.push(...(entries.length ? entries.map(([k, n]) => `  ${k} ×${n}`) : ["  (none)"]));
  };
  section("Firewall blocks", r.firewallBlocked);
  section("MCP tool calls", r.mcpToolCalls);
  section("Safe outputs", r.safeOutputs);
  lines.push("", "Errors:", ...(r.errors.length ? r.errors.map((e) => `  ${e}`) : ["  (none)"]));
  return lines.join("\n");
}
