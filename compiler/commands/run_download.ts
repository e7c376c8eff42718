/** Downloads one workflow run into `<out>/run-<id>/`: `run.json`, the logs archive and every artifact. */
import type { GitHubClient } from "../github/client.ts";
import { GitHubError } from "../github/client.ts";
import { extractZip } from "../github/zip.ts";

/** The fields of a workflow run that `logs` and `audit` use. */
export interface WorkflowRun {
  /** Run id. */
  id: number;
  /** Workflow display name. */
  name?: string;
  /** Workflow file path (`.github/workflows/x.lock.yml`). */
  path?: string;
  /** `queued`, `in_progress`, `completed`. */
  status?: string;
  /** `success`, `failure`, … once completed. */
  conclusion?: string | null;
  /** ISO times. */
  run_started_at?: string;
  /** ISO time of creation. */
  created_at?: string;
  /** ISO time of the last update (end of a completed run). */
  updated_at?: string;
  /** Web URL. */
  html_url?: string;
  /** Triggering event. */
  event?: string;
}

interface Artifact {
  name: string;
  expired?: boolean;
  archive_download_url: string;
}

/** What was fetched. */
export interface DownloadOutcome {
  /** The run folder. */
  dir: string;
  /** True when the folder came from an earlier download of a completed run. */
  cached: boolean;
  /** Problems that did not stop the download (expired logs, missing permission). */
  warnings: string[];
}

/** Downloads a run unless a completed copy is already there. */
export async function downloadRun(
  client: GitHubClient,
  slug: string,
  run: WorkflowRun,
  outDir: string,
): Promise<DownloadOutcome> {
  const dir = `${outDir}/run-${run.id}`;
  const warnings: string[] = [];
  const previous = await Deno.readTextFile(`${dir}/run.json`).then(JSON.parse).catch(() => undefined);
  if (previous?.status === "completed") return { dir, cached: true, warnings };
  await Deno.mkdir(dir, { recursive: true });
  try {
    await extractZip(await client.bytes(`/repos/${slug}/actions/runs/${run.id}/logs`), `${dir}/logs`);
  } catch (error) {
    if (!(error instanceof GitHubError) && !isZipError(error)) throw error;
    warnings.push(`run ${run.id}: logs unavailable: ${(error as Error).message}`);
  }
  const artifacts = await client.paginate<Artifact>(
    `/repos/${slug}/actions/runs/${run.id}/artifacts?per_page=100`,
    {
      itemsKey: "artifacts",
    },
  );
  for (const artifact of artifacts) {
    if (artifact.expired) {
      warnings.push(`run ${run.id}: artifact ${artifact.name} expired`);
      continue;
    }
    // One plain folder name: "." and ".." match the character class but would extract into run-<id>/ itself or its parent.
    if (!/^[\w.-]+$/.test(artifact.name) || /^\.{1,2}$/.test(artifact.name)) {
      warnings.push(`run ${run.id}: artifact name ${JSON.stringify(artifact.name)} skipped (unsafe)`);
      continue;
    }
    try {
      await extractZip(await client.bytes(artifact.archive_download_url), `${dir}/${artifact.name}`);
    } catch (error) {
      if (!(error instanceof GitHubError) && !isZipError(error)) throw error;
      warnings.push(`run ${run.id}: artifact ${artifact.name}: ${(error as Error).message}`);
    }
  }
  // run.json last: its presence with status completed marks a complete download.
  await Deno.writeTextFile(`${dir}/run.json`, JSON.stringify(run, null, 2) + "\n");
  return { dir, cached: false, warnings };
}

function isZipError(error: unknown): boolean {
  return error instanceof Error && /zip/.test(error.message);
}
