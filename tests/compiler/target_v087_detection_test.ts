/**
 * Issue 29: the threat-detection job's firewall run under the v0.87.4 target. gh-aw v0.87.4 builds the
 * review's run with the agent's AWF command builder (rootless, Docker host passed on, OIDC request variables
 * hidden, logging in the config), with the review's own AI-credit budget (`GH_AW_DEFAULT_DETECTION_MAX_AI_CREDITS`,
 * default 400), no MCP gateway to attach to and the chroot config patched with `jq`. v0.76.1 keeps its own run.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Step = Record<string, unknown>;
type Job = Record<string, unknown> & { steps: Step[] };
const jobsOf = (lock: string) => (parse(lock) as { jobs: Record<string, Job> }).jobs;
const V087 = { ghAwVersion: "v0.87.4", actionMode: "release" as const };
const V076 = { ghAwVersion: "v0.76.1", actionMode: "release" as const };

const wf = (engine = "copilot", extra = "") =>
  `---\non:\n  workflow_dispatch:\nengine: ${engine}\npermissions:\n  contents: read\n${extra}safe-outputs:\n  create-issue:\n  threat-detection: true\n---\nDo it.\n`;

/** The review's execution step. */
function reviewStep(lock: string): Step {
  const step = jobsOf(lock).detection.steps.find((s) => s.id === "detection_agentic_execution");
  assert(step, "the detection job runs the engine");
  return step;
}

/** The AWF config JSON the review's run writes, with the shell's credit limit read as `credits`. */
function awfConfig(run: string, credits: number): Record<string, unknown> {
  const line = run.split("\n").find((l) => l.includes("awf-config.schema.json"))!;
  const arg = /printf '%s\\n' (.*) > "/.exec(line)![1];
  assert(arg.startsWith('"'), "the config is double-quoted so the credit limit expands");
  return JSON.parse(
    arg.slice(1, -1).replace(/\\(.)/g, "$1").replace("${GH_AW_MAX_AI_CREDITS}", String(credits)),
  );
}

Deno.test("v0.87.4 threat detection runs AWF rootless like the agent, with the detection budget", async () => {
  const { lock } = await compileOne(wf(), {}, V087);
  const step = reviewStep(lock);
  const run = String(step.run);
  assert(!run.includes("sudo -E awf"), "no sudo");
  assert(run.includes('\nawf --config "${RUNNER_TEMP}/gh-aw/awf-config.json"'), run);
  assert(run.includes('${GH_AW_DOCKER_HOST:+--docker-host "$GH_AW_DOCKER_HOST"}'));
  assert(!run.includes("GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS"), "v0.76.1's path-prefix probe is gone");
  assert(
    run.includes(
      "--env-all --exclude-env ACTIONS_ID_TOKEN_REQUEST_TOKEN --exclude-env ACTIONS_ID_TOKEN_REQUEST_URL " +
        "--exclude-env COPILOT_GITHUB_TOKEN --mount /tmp/gh-aw:/tmp/gh-aw:rw --log-level info --skip-pull \\\n",
    ),
    run,
  );
  assert(!run.includes("--proxy-logs-dir"), "logging moved into the config");
  assert(run.includes('GH_AW_MAX_AI_CREDITS="${GH_AW_MAX_AI_CREDITS:-400}"\n'));
  assert(run.includes('GH_AW_TOOL_CACHE="${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE must be set}"'));
  assert(run.includes("-- /bin/bash -c 'set +o histexpand; : \"${RUNNER_TOOL_CACHE:?"), run);
  assert(run.endsWith("2>&1 | tee -a /tmp/gh-aw/threat-detection/detection.log\n"));
  // The chroot config is patched with jq on a TCP Docker daemon, not with the agent's Node.js helper.
  assert(run.includes('_GH_AW_CHROOT_JSON=$(jq -c --arg src "${RUNNER_TEMP}/gh-aw"'), run);
  assert(!run.includes("patch_awf_chroot_config.cjs"));
  const cfg = awfConfig(run, 400);
  const network = cfg.network as Record<string, unknown>;
  assertEquals(network.isolation, undefined, "no gateway to isolate the review with");
  assertEquals(network.topologyAttach, undefined);
  const proxy = cfg.apiProxy as Record<string, unknown>;
  assertEquals([proxy.maxAiCredits, proxy.maxCacheMisses, proxy.maxEffectiveTokens], [400, 5, undefined]);
  assert((proxy.models as Record<string, unknown>).detection, "the alias table reaches the review");
  assertEquals(cfg.logging, {
    proxyLogsDir: "/tmp/gh-aw/sandbox/firewall/logs",
    auditDir: "/tmp/gh-aw/sandbox/firewall/audit",
  });
  const env = step.env as Record<string, unknown>;
  assertEquals(env.GH_AW_MAX_AI_CREDITS, "${{ vars.GH_AW_DEFAULT_DETECTION_MAX_AI_CREDITS || '400' }}");
  const keys = Object.keys(env);
  assertEquals(keys, [...keys].sort(), "the step env stays sorted");
});

Deno.test("v0.87.4 threat detection: the workflow's max-ai-credits stays the agent's", async () => {
  const { lock } = await compileOne(wf("copilot", "max-ai-credits: 77\n"), {}, V087);
  const run = String(reviewStep(lock).run);
  assert(run.includes('GH_AW_MAX_AI_CREDITS="${GH_AW_MAX_AI_CREDITS:-400}"'), run);
  assertEquals((awfConfig(run, 400).apiProxy as Record<string, unknown>).maxAiCredits, 400);
});

Deno.test("v0.87.4 threat detection: other engines' reviews run rootless too", async () => {
  for (const engine of ["claude", "codex", "gemini"]) {
    const { lock } = await compileOne(wf(engine), {}, V087);
    const run = String(reviewStep(lock).run);
    assert(run.includes('\nawf --config "${RUNNER_TEMP}/gh-aw/awf-config.json"'), `${engine}: ${run}`);
    assert(!run.includes("sudo -E awf"), engine);
    assert(run.includes("-- /bin/bash -c 'set +o histexpand; "), engine);
    // Each engine keeps its own flags: Claude's terminal, its API key hidden.
    if (engine === "claude") {
      assert(run.includes(" --tty --env-all ") && run.includes("ANTHROPIC_API_KEY"), run);
    }
    if (engine === "codex") {
      assert(run.includes("--exclude-env CODEX_API_KEY --exclude-env OPENAI_API_KEY"), run);
    }
  }
});

Deno.test("v0.76.1 threat detection keeps its sudo run and effective-token budget", async () => {
  const { lock } = await compileOne(wf(), {}, V076);
  const step = reviewStep(lock);
  const run = String(step.run);
  assert(run.includes("\nsudo -E awf --config"), run);
  assert(run.includes("GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS"));
  assert(run.includes('"maxEffectiveTokens":25000000'));
  assert(!run.includes("GH_AW_MAX_AI_CREDITS"));
  assertEquals((step.env as Record<string, unknown>).GH_AW_MAX_AI_CREDITS, undefined);
});
