/** The `update_cache_memory` job: saves the agent's cache-memory folder to the Actions cache after a good run. */
import type { JobPlan } from "./plan_types.ts";
import { type JobCtx, setupSteps } from "./jobs_common.ts";
import { lit, plain } from "./yaml_writer.ts";

/** Builds `update_cache_memory` for the default cache memory. */
export function updateCacheMemoryJob(ctx: JobCtx, detection: boolean, cacheSaveRef: string): JobPlan {
  return {
    needs: ["activation", "agent", ...(detection ? ["detection"] : [])],
    if: plain(
      detection
        ? "always() && needs.detection.result == 'success' && needs.agent.result == 'success'"
        : "always() && needs.agent.result == 'success'",
    ),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "read" },
    env: { GH_AW_WORKFLOW_ID_SANITIZED: ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase() },
    steps: [
      ...setupSteps(ctx, true),
      {
        name: "Download cache-memory artifact (default)",
        id: "download_cache_default",
        uses: plain(ctx.refs.download),
        "continue-on-error": true,
        with: { name: "cache-memory", path: "/tmp/gh-aw/cache-memory" },
      },
      {
        name: "Check if cache-memory folder has content (default)",
        id: "check_cache_default",
        shell: "bash",
        run: lit(
          'if [ -d "/tmp/gh-aw/cache-memory" ] && [ "$(ls -A /tmp/gh-aw/cache-memory 2>/dev/null)" ]; then\n' +
            '  echo "has_content=true" >> "$GITHUB_OUTPUT"\nelse\n  echo "has_content=false" >> "$GITHUB_OUTPUT"\nfi\n',
        ),
      },
      {
        name: "Save cache-memory to cache (default)",
        if: plain("steps.check_cache_default.outputs.has_content == 'true'"),
        uses: plain(cacheSaveRef),
        with: {
          key: plain("memory-none-nopolicy-${{ env.GH_AW_WORKFLOW_ID_SANITIZED }}-${{ github.run_id }}"),
          path: "/tmp/gh-aw/cache-memory",
        },
      },
    ],
  };
}
