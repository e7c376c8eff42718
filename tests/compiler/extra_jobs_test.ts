/** Jobs gh-aw adds beside the standard ones, and what the conclusion job takes from them. */
import { parse } from "yaml";
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; id?: string; if?: string; uses?: string; with?: Record<string, unknown> };
type Job = {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: Step[];
};

async function jobsOf(md: string, extra: Record<string, string> = {}): Promise<Record<string, Job>> {
  return parse((await compileOne(md, extra)).lock).jobs;
}

const stepNames = (job: Job) => job.steps.map((s) => s.name);

Deno.test("create-code-scanning-alert uploads its SARIF file through the upload_code_scanning_sarif job", async () => {
  const jobs = await jobsOf(
    "---\non: workflow_dispatch\nsafe-outputs:\n  create-code-scanning-alert:\n    driver: Scanner\n---\nScan.\n",
  );
  const upload = jobs.safe_outputs.steps.find((s) => s.name === "Upload SARIF artifact")!;
  assertEquals(upload.if, "steps.process_safe_outputs.outputs.sarif_file != ''");
  assertEquals(upload.with?.name, "code-scanning-sarif");
  assertEquals(jobs.safe_outputs.outputs?.sarif_file, "${{ steps.process_safe_outputs.outputs.sarif_file }}");
  const job = jobs.upload_code_scanning_sarif;
  assertEquals(job.needs, "safe_outputs");
  assertEquals(job.if, "needs.safe_outputs.outputs.sarif_file != ''");
  assertEquals(job.permissions, { contents: "read", "security-events": "write" });
  assertEquals(stepNames(job), [
    "Restore checkout to triggering commit",
    "Download SARIF artifact",
    "Upload SARIF to GitHub Code Scanning",
  ]);
  assertEquals(job.steps[2].with?.sarif_file, "/tmp/gh-aw/sarif/code-scanning-alert.sarif");
  assertEquals((jobs.conclusion.needs as string[]).includes("upload_code_scanning_sarif"), true);
});

Deno.test("a staged create-code-scanning-alert has no SARIF upload and grants no scopes", async () => {
  const jobs = await jobsOf(
    "---\non: workflow_dispatch\nsafe-outputs:\n  create-code-scanning-alert:\n    staged: true\n" +
      "  add-labels:\n---\nScan.\n",
  );
  assertEquals(jobs.upload_code_scanning_sarif, undefined);
  assertEquals(stepNames(jobs.safe_outputs).includes("Upload SARIF artifact"), false);
  assertEquals(jobs.safe_outputs.outputs?.sarif_file, undefined);
  assertEquals(jobs.safe_outputs.permissions?.["security-events"], undefined);
  assertEquals(jobs.conclusion.permissions?.["security-events"], undefined);
});

Deno.test("the status comment's update names the other safe-output jobs", async () => {
  const jobs = await jobsOf(
    "---\non:\n  issues:\n    types: [opened]\n  status-comment: true\nsafe-outputs:\n" +
      "  create-code-scanning-alert:\n---\nScan.\n",
  );
  const step = jobs.conclusion.steps.find((s) =>
    s.name === "Update reaction comment with completion status"
  ) as
    & Step
    & { env: Record<string, string> };
  assertEquals(step.env.GH_AW_SAFE_OUTPUT_JOBS, '{"upload_code_scanning_sarif":""}');
});

Deno.test("call-workflow fans out to one call-<worker> job per worker, with its inputs, secrets and scopes", async () => {
  const worker = "name: W\non:\n  workflow_call:\n    inputs:\n      payload:\n        type: string\n" +
    "      task-description:\n        type: string\n    secrets:\n      MY_TOKEN:\n        required: false\n" +
    "jobs:\n  a:\n    permissions:\n      contents: read\n      issues: write\n    runs-on: x\n" +
    "  b:\n    permissions:\n      actions: read\n    runs-on: x\n";
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\n  pull-requests: read\n" +
    "safe-outputs:\n  call-workflow:\n    workflows:\n      - worker\n      - missing\n---\nCall.\n";
  const jobs = await jobsOf(md, { ".github/workflows/worker.lock.yml": worker }) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  assertEquals(jobs["call-worker"], {
    needs: "safe_outputs",
    if: "needs.safe_outputs.outputs.call_workflow_name == 'worker'",
    permissions: { actions: "read", contents: "read", issues: "write", "pull-requests": "read" },
    uses: "./.github/workflows/worker.lock.yml",
    with: {
      payload: "${{ needs.safe_outputs.outputs.call_workflow_payload }}",
      "task-description":
        "${{ fromJSON(needs.safe_outputs.outputs.call_workflow_payload).task-description }}",
    },
    secrets: { MY_TOKEN: "${{ secrets.MY_TOKEN }}" },
  });
  // A worker whose file is not there yet inherits the secrets and forwards no inputs.
  assertEquals(jobs["call-missing"].secrets, "inherit");
  assertEquals(jobs["call-missing"].with, undefined);
  const needs = jobs.conclusion.needs as string[];
  assertEquals(needs.includes("call-worker") && needs.includes("call-missing"), true);
});

Deno.test("a list of repo memories is pushed by push_repo_memory, one step per memory, and reported by the conclusion", async () => {
  const md = "---\non: workflow_dispatch\nsafe-outputs:\n  create-issue:\ntools:\n  repo-memory:\n" +
    "    - id: notes\n      branch-name: memory/notes\n    - id: audits\n      branch-name: memory/audits\n---\nGo.\n";
  const jobs = await jobsOf(md) as unknown as Record<string, Job & Record<string, unknown>>;
  const push = jobs.push_repo_memory;
  assertEquals(
    stepNames(push).filter((n) => n?.startsWith("Push repo-memory")),
    ["Push repo-memory changes (notes)", "Push repo-memory changes (audits)"],
  );
  assertEquals(
    (push.concurrency as Record<string, string>).group,
    "push-repo-memory-${{ github.repository }}|memory/audits|memory/notes",
  );
  assertEquals(
    push.outputs?.validation_failed_notes,
    "${{ steps.push_repo_memory_notes.outputs.validation_failed }}",
  );
  const failure = jobs.conclusion.steps.find((s) => s.name === "Handle agent failure") as Step & {
    env: Record<string, string>;
  };
  assertEquals(
    failure.env.GH_AW_REPO_MEMORY_VALIDATION_ERROR_audits,
    "${{ needs.push_repo_memory.outputs.validation_error_audits }}",
  );
  assertEquals((jobs.conclusion.needs as string[]).includes("push_repo_memory"), true);
});

Deno.test("a staged run keeps upload_assets (told it is staged) and the safe_outputs type outputs", async () => {
  const md =
    "---\non: workflow_dispatch\nsafe-outputs:\n  staged: true\n  upload-asset:\n  add-comment:\n---\nGo.\n";
  const jobs = await jobsOf(md);
  const push = jobs.upload_assets.steps.find((s) => s.name === "Push assets") as Step & {
    env: Record<string, string>;
  };
  assertEquals(push.env.GH_AW_SAFE_OUTPUTS_STAGED, "true");
  assertEquals(jobs.safe_outputs.outputs?.comment_id, "${{ steps.process_safe_outputs.outputs.comment_id }}");
  assertEquals((jobs.conclusion.needs as string[]).includes("upload_assets"), true);
});

Deno.test("concurrency.job-discriminator splits the conclusion's group as it splits the agent's", async () => {
  const md =
    "---\non:\n  schedule: daily\n  workflow_dispatch:\n    inputs:\n      org:\n        type: string\n" +
    "concurrency:\n  job-discriminator: ${{ inputs.org || github.run_id }}\nsafe-outputs:\n  create-issue:\n---\nGo.\n";
  const jobs = await jobsOf(md) as unknown as Record<string, { concurrency: { group: string } }>;
  assertEquals(jobs.conclusion.concurrency.group, "gh-aw-conclusion-w-${{ inputs.org || github.run_id }}");
});

Deno.test("lock-for-agent locks the issue in activation and the unlock job unlocks it before the safe outputs", async () => {
  const md =
    "---\non:\n  issues:\n    types: [opened]\n    lock-for-agent: true\nsafe-outputs:\n  add-comment:\n---\nGo.\n";
  const jobs = await jobsOf(md);
  const lock = jobs.activation.steps.find((s) => s.name === "Lock issue for agentic workflow")!;
  assertEquals(lock.if, "github.event_name == 'issues' || github.event_name == 'issue_comment'");
  assertEquals(jobs.activation.permissions?.issues, "write");
  assertEquals(jobs.activation.outputs?.issue_locked, "${{ steps.lock-issue.outputs.locked }}");
  assertEquals(jobs.unlock.needs, ["activation", "agent", "detection"]);
  assertEquals(jobs.unlock.permissions, { contents: "read", issues: "write" });
  assertEquals(stepNames(jobs.unlock).at(-1), "Unlock issue after agentic workflow");
  assertEquals((jobs.safe_outputs.needs as string[]).includes("unlock"), true);
  assertEquals((jobs.conclusion.needs as string[]).includes("unlock"), true);
});
