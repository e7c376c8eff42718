/**
 * The safe-outputs steps of the agent job: the config and tool files, the safe-outputs MCP HTTP server,
 * copying and ingesting the agent's output, and the artifacts the upload-asset / upload-artifact jobs read.
 */
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { scriptStep, targetOf } from "../steps.ts";
import { Comment, dq, lit, litPadded, plain, sq, type YValue } from "../../yaml/writer.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { expandEcosystems } from "../network.ts";
import { goJson, validationJson } from "./validation.ts";
import { toolsMetaJson } from "./tools_meta.ts";
import { dynamicTools, safeJobsConfig } from "./dynamic_tools.ts";
import { isObject, objectOf } from "../../source/values.ts";

type Obj = Record<string, unknown>;

/** A value with its objects' keys sorted, as Go writes `map[string]any` (items of lists keep their order). */
function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v;
  if (isObject(v)) {
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) out[k] = sortDeep(v[k]);
    return out;
  }
  return v;
}

/** `tools.repo-memory` as the `push_repo_memory` tool config (one entry per memory). */
export function repoMemoryConfig(repoMemory: unknown): Obj | undefined {
  if (repoMemory === undefined || repoMemory === false) return undefined;
  const list = Array.isArray(repoMemory) ? repoMemory : [objectOf(repoMemory)];
  const num = (v: unknown, d: number) => (typeof v === "number" ? v : Number(v) || d);
  const memories = list.map((m: Obj) => {
    const id = typeof m.id === "string" ? m.id : "default";
    return {
      dir: `/tmp/gh-aw/repo-memory/${id}`,
      id,
      max_file_count: num(m["max-file-count"], 100),
      max_file_size: num(m["max-file-size"], 102400),
      max_patch_size: num(m["max-patch-size"], 10240),
    };
  });
  return memories.length ? { memories } : undefined;
}

/** `tools.comment-memory` as the `comment_memory` safe-output config (one memory comment, `default`). */
export function commentMemoryConfig(commentMemory: unknown): Obj | undefined {
  if (commentMemory === undefined || commentMemory === false) return undefined;
  const o = objectOf(commentMemory);
  return { max: o.max ?? 1, memory_id: o["memory-id"] ?? "default" };
}

/** Adds the `comment_memory` handler config when `tools.comment-memory` is on (keys kept sorted). */
export function applyCommentMemory(so: AgentInput["safeOutputs"], commentMemory: unknown): void {
  const cfg = commentMemoryConfig(commentMemory);
  if (!cfg || so.handlerConfig.comment_memory) return;
  const all: Record<string, Record<string, unknown>> = { ...so.handlerConfig, comment_memory: cfg };
  for (const k of Object.keys(so.handlerConfig)) delete so.handlerConfig[k];
  for (const k of Object.keys(all).sort()) so.handlerConfig[k] = all[k];
}

/**
 * "Prepare comment memory files" (with `tools.comment-memory`): fetches the memory comments into
 * /tmp/gh-aw/comment-memory; it comes right after "Download activation artifact".
 */
export function commentMemorySteps(agentInput: AgentInput): StepPlan[] {
  if (!commentMemoryConfig(agentInput.merged.tools["comment-memory"])) return [];
  return [scriptStep(agentInput.ctx, "Prepare comment memory files", "setup_comment_memory_files", {
    token: "${{ secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  })];
}

/** The contents of safeoutputs/config.json: the handler config plus agent-side settings, keys sorted. */
export function safeOutputsConfigJson(agentInput: AgentInput): string {
  const so = agentInput.safeOutputs;
  const cfg: Obj = { ...so.handlerConfig, ...safeJobsConfig(so) };
  // A type's own token is part of the agent-side config (the step resolves it through its env).
  for (const [t, c] of Object.entries(so.handlerConfig)) {
    const token = objectOf(so.configs[t.replace(/_/g, "-")])["github-token"];
    if (typeof token === "string") cfg[t] = { ...c, "github-token": token };
  }
  const botMentions = so.global["max-bot-mentions"];
  if (botMentions !== undefined) cfg.max_bot_mentions = botMentions;
  const commentMemory = commentMemoryConfig(agentInput.merged.tools["comment-memory"]);
  if (commentMemory && !cfg.comment_memory) cfg.comment_memory = commentMemory;
  const memory = repoMemoryConfig(agentInput.merged.tools["repo-memory"]);
  if (memory) cfg.push_repo_memory = memory;
  return goJson(sortDeep(cfg));
}

/** `github.<x>` properties that have a runner variable (`GITHUB_<X>`), resolved through the step env. */
const GITHUB_CONTEXT_VARS = new Set([
  "workflow",
  "run_id",
  "run_number",
  "run_attempt",
  "actor",
  "repository",
  "event_name",
  "sha",
  "ref",
  "ref_name",
  "ref_type",
  "head_ref",
  "base_ref",
  "server_url",
  "job",
  "action",
  "workspace",
  "workflow_ref",
  "workflow_sha",
  "repository_owner",
  "triggering_actor",
  "token",
]);

/**
 * Expressions in the config that the step resolves through its env (`${{ secrets.X }}` → `X`,
 * `${{ github.x }}` → `GITHUB_X` for the runner's own variables): the env, sorted, and the config text
 * with `${NAME}` in their place. Other expressions stay as written.
 */
export function configEnv(config: string): { env: Record<string, string>; text: string } {
  const env: Record<string, string> = {};
  const text = config.replace(/\$\{\{\s*(secrets|github)\.([A-Za-z0-9_.]+)\s*\}\}/g, (expr, scope, name) => {
    if (scope === "github" && !GITHUB_CONTEXT_VARS.has(name)) return expr;
    const v = scope === "secrets" ? name : `GITHUB_${name.toUpperCase()}`;
    env[v] = `\${{ ${scope}.${name} }}`;
    return `\${${v}}`;
  });
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(env).sort()) sorted[k] = env[k];
  return { env: sorted, text };
}

/**
 * The safe-outputs config as the target writes it: a heredoc (v0.76.1), or (v0.87.1) "Prepare Safe Outputs
 * Directories" and `create_files.cjs` writing the JSON it finds in `GH_AW_SAFE_OUTPUTS_CONFIG`.
 */
function configSteps(agentInput: AgentInput): StepPlan[] {
  if (!targetOf(agentInput.ctx).jobs.safeOutputsConfigFromEnv) return [configStep(agentInput)];
  const dirs = [
    '"${RUNNER_TEMP}/gh-aw/safeoutputs"',
    "/tmp/gh-aw/safeoutputs",
    "/tmp/gh-aw/mcp-logs/safeoutputs",
  ];
  if (agentInput.safeOutputs.handlerConfig.upload_artifact) {
    dirs.push('"${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts"');
  }
  const write = scriptStep(agentInput.ctx, "Generate Safe Outputs Config", "create_files");
  return [
    { name: "Prepare Safe Outputs Directories", run: lit(dirs.map((d) => `mkdir -p ${d}\n`).join("")) },
    {
      name: write.name,
      uses: write.uses,
      env: {
        GH_AW_FILE_ROOT: dq("${{ runner.temp }}/gh-aw"),
        GH_AW_FILE_CONFIG: dq(
          JSON.stringify({
            files: [{ path: "safeoutputs/config.json", content_env: "GH_AW_SAFE_OUTPUTS_CONFIG" }],
          }),
        ),
        // Expressions stay in the value: GitHub evaluates env values, so none reaches a script.
        GH_AW_SAFE_OUTPUTS_CONFIG: dq(safeOutputsConfigJson(agentInput)),
      },
      with: write.with,
    },
  ];
}

/** "Generate Safe Outputs Config": writes config.json (expressions come in through the step env). */
function configStep(agentInput: AgentInput): StepPlan {
  const { env, text } = configEnv(safeOutputsConfigJson(agentInput));
  const delim = heredocDelimiter("SAFE_OUTPUTS_CONFIG", agentInput.frontmatterHash);
  const quoted = Object.keys(env).length ? delim : `'${delim}'`;
  const dirs = [
    '"${RUNNER_TEMP}/gh-aw/safeoutputs"',
    "/tmp/gh-aw/safeoutputs",
    "/tmp/gh-aw/mcp-logs/safeoutputs",
  ];
  if (agentInput.safeOutputs.handlerConfig.upload_artifact) {
    dirs.push('"${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts"');
  }
  const step: StepPlan = { name: "Generate Safe Outputs Config" };
  if (Object.keys(env).length) {
    step.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, plain(v)]));
  }
  step.run = lit(
    dirs.map((d) => `mkdir -p ${d}\n`).join("") +
      `cat > "\${RUNNER_TEMP}/gh-aw/safeoutputs/config.json" << ${quoted}\n${text}\n${delim}\n`,
  );
  return step;
}

/** "Generate Safe Outputs Tools": tool constraints, dynamic tools and field validation for the runtime. */
function toolsStep(agentInput: AgentInput): StepPlan {
  const so = agentInput.safeOutputs;
  const step = scriptStep(agentInput.ctx, "Generate Safe Outputs Tools", "generate_safe_outputs_tools");
  const enabled = Object.keys(safeOutputsConfigObject(agentInput));
  return {
    name: step.name,
    env: {
      GH_AW_TOOLS_META_JSON: lit(
        toolsMetaJson(
          so,
          dynamicTools(agentInput.safeOutputs, agentInput.workflowTargets),
          targetOf(agentInput.ctx).jobs.agent.toolPropertyInjections,
        ) + "\n",
      ),
      GH_AW_VALIDATION_JSON: lit(
        validationJson(enabled, targetOf(agentInput.ctx).jobs.agent.validation) + "\n",
      ),
    },
    uses: step.uses,
    with: step.with,
  };
}

function safeOutputsConfigObject(agentInput: AgentInput): Obj {
  return JSON.parse(safeOutputsConfigJson(agentInput));
}

const SERVER_ENV: [string, YValue][] = [
  ["DEBUG", sq("*")],
  ["GH_AW_SAFE_OUTPUTS", plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}")],
  ["GH_AW_SAFE_OUTPUTS_PORT", plain("${{ steps.safe-outputs-config.outputs.safe_outputs_port }}")],
  ["GH_AW_SAFE_OUTPUTS_API_KEY", plain("${{ steps.safe-outputs-config.outputs.safe_outputs_api_key }}")],
  ["GH_AW_SAFE_OUTPUTS_TOOLS_PATH", plain("${{ runner.temp }}/gh-aw/safeoutputs/tools.json")],
  ["GH_AW_SAFE_OUTPUTS_CONFIG_PATH", plain("${{ runner.temp }}/gh-aw/safeoutputs/config.json")],
  ["GH_AW_MCP_LOG_DIR", "/tmp/gh-aw/mcp-logs/safeoutputs"],
];

/** The steps that write the safe-outputs config and tools and start the safe-outputs MCP HTTP server. */
export function safeOutputsServerSteps(agentInput: AgentInput): StepPlan[] {
  const files = [...configSteps(agentInput), toolsStep(agentInput)];
  // Releases whose gateway runs the server as a stdio container start nothing here.
  if (targetOf(agentInput.ctx).jobs.agent.gateway?.safeOutputsStdio) return files;
  return [
    ...files,
    {
      name: "Generate Safe Outputs MCP Server Config",
      id: "safe-outputs-config",
      run: litPadded(
        "# Generate a secure random API key (360 bits of entropy, 40+ chars)\n" +
          "# Mask immediately to prevent timing vulnerabilities\n" +
          "API_KEY=$(openssl rand -base64 45 | tr -d '/+=')\n" +
          'echo "::add-mask::${API_KEY}"\n\nPORT=3001\n\n# Set outputs for next steps\n{\n' +
          '  echo "safe_outputs_api_key=${API_KEY}"\n  echo "safe_outputs_port=${PORT}"\n} >> "$GITHUB_OUTPUT"\n\n' +
          'echo "Safe Outputs MCP server will run on port ${PORT}"\n',
      ),
    },
    {
      name: "Start Safe Outputs MCP HTTP Server",
      id: "safe-outputs-start",
      env: Object.fromEntries(SERVER_ENV),
      run: litPadded(
        "# Environment variables are set above to prevent template injection\n" +
          SERVER_ENV.map(([k]) => `export ${k}\n`).join("") +
          '\nbash "${RUNNER_TEMP}/gh-aw/actions/start_safe_outputs_server.sh"\n',
      ),
    },
  ];
}

/** Domains the output sanitizer keeps links to: the agent's allowlist plus `safe-outputs.allowed-domains`. */
export function sanitizerDomains(agentInput: AgentInput): string[] {
  const extra = expandEcosystems(agentInput.safeOutputs.allowedDomains ?? []);
  return [...new Set([...agentInput.allowedDomains, ...extra])].sort();
}

/** "Copy Safe Outputs" and "Ingest agent output" after the run. */
export function safeOutputsIngestSteps(agentInput: AgentInput): StepPlan[] {
  const { ctx } = agentInput;
  const env: Record<string, YValue> = {
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GH_AW_ALLOWED_DOMAINS: dq(sanitizerDomains(agentInput).join(",")),
  };
  if (agentInput.allowedReferences !== undefined) {
    env.GH_AW_ALLOWED_GITHUB_REFS = dq(agentInput.allowedReferences.join(","));
  }
  env.GITHUB_SERVER_URL = plain("${{ github.server_url }}");
  env.GITHUB_API_URL = plain("${{ github.api_url }}");
  // A slash command without a name is named after the workflow.
  if (ctx.commands) env.GH_AW_COMMANDS = dq(JSON.stringify(ctx.commands.length ? ctx.commands : [ctx.id]));
  return [
    {
      name: "Copy Safe Outputs",
      if: plain("always()"),
      env: { GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}") },
      run: lit(
        'mkdir -p /tmp/gh-aw\ncp "$GH_AW_SAFE_OUTPUTS" /tmp/gh-aw/safeoutputs.jsonl 2>/dev/null || true\n',
      ),
    },
    scriptStep(ctx, "Ingest agent output", "collect_ndjson_output", {
      id: "collect_output",
      if: plain("always()"),
      env,
    }),
  ];
}

/**
 * Uploads the files staged by `upload_asset` and `upload_artifact` for their jobs; they come right
 * before "Upload agent artifacts".
 */
export function safeOutputsUploadSteps(agentInput: AgentInput): StepPlan[] {
  const { ctx } = agentInput;
  const hc = agentInput.safeOutputs.handlerConfig;
  const steps: StepPlan[] = [];
  const upload = (name: string, artifact: string, path: string): StepPlan => ({
    name,
    if: plain("always()"),
    uses: plain(ctx.refs.upload),
    with: { name: artifact, path: plain(path), "retention-days": 1, "if-no-files-found": "ignore" },
  });
  if (hc.upload_asset) {
    steps.push(new Comment("Upload safe-outputs assets for upload_assets job") as unknown as StepPlan);
    steps.push(upload("Upload Safe Outputs Assets", "safe-outputs-assets", "/tmp/gh-aw/safeoutputs/assets/"));
  }
  if (hc.upload_artifact) {
    steps.push(
      new Comment(
        "Upload safe-outputs upload-artifact staging for the upload_artifact job",
      ) as unknown as StepPlan,
    );
    steps.push(
      upload(
        "Upload upload-artifact staging",
        "safe-outputs-upload-artifacts",
        "${{ runner.temp }}/gh-aw/safeoutputs/upload-artifacts/",
      ),
    );
  }
  return steps;
}

/** Safe-outputs files uploaded with the agent artifact (the comment-memory files, when enabled). */
export function safeOutputsArtifactPaths(agentInput: AgentInput): string[] {
  return commentMemoryConfig(agentInput.merged.tools["comment-memory"]) ? ["/tmp/gh-aw/comment-memory/"] : [];
}

/** The agent job's `GH_AW_ASSETS_*` env: the upload-asset branch, size limit and extensions (empty without it). */
export function assetsEnv(agentInput: AgentInput): Record<string, YValue> {
  const asset = agentInput.safeOutputs.handlerConfig.upload_asset;
  if (!asset) {
    return { GH_AW_ASSETS_ALLOWED_EXTS: dq(""), GH_AW_ASSETS_BRANCH: dq(""), GH_AW_ASSETS_MAX_SIZE_KB: 0 };
  }
  const exts = Array.isArray(asset["allowed-exts"]) ? asset["allowed-exts"].map(String) : [];
  return {
    GH_AW_ASSETS_ALLOWED_EXTS: dq(exts.join(",")),
    GH_AW_ASSETS_BRANCH: dq(String(asset.branch ?? "")),
    GH_AW_ASSETS_MAX_SIZE_KB: Number(asset["max-size"] ?? 0),
  };
}
