/**
 * The prompt the `activation` job assembles: the built-in context block, the body's `${{ … }}` expressions
 * passed through `env:` (never expanded inside a script), the memory and checkout notes, and the steps that
 * create, interpolate and substitute it.
 */
import type { StepPlan } from "../types.ts";
import { type JobCtx, scriptStep, targetOf } from "../steps.ts";
import { Comment, dq, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { memoryBranch } from "./memory.ts";
import type { ActivationInput } from "./activation_input.ts";
import { goFixed2 } from "./go_format.ts";
import { exprEnvName } from "./prompt_markdown.ts";

/** The comment gh-aw puts before `run:` of steps that execute checked-out content. */
const POUTINE = new Comment("poutine:ignore untrusted_checkout_exec");
import { heredocDelimiter } from "../../source/hash.ts";
import { type Mapping, mappingOf } from "../../source/values.ts";

const CTX = "fromJSON(github.event.inputs.aw_context || github.event.client_payload.aw_context || '{}')";

/** Built-in context expressions offered in the `<github-context>` block. */
const CONTEXT_EXPRS: [string, string, string][] = [
  [
    "discussion",
    `github.event.discussion.number || (${CTX}.item_type == 'discussion' && ${CTX}.item_number)`,
    "",
  ],
  [
    "pull_request",
    `github.event.pull_request.number || (${CTX}.item_type == 'pull_request' && ${CTX}.item_number)`,
    "",
  ],
  ["issue", `github.event.issue.number || (${CTX}.item_type == 'issue' && ${CTX}.item_number)`, ""],
  ["comment", `github.event.comment.id || ${CTX}.comment_id`, ""],
];

/**
 * Body text written into the prompt step's `run:` script: GitHub expands `${{ … }}` anywhere in a script,
 * so an event field (an issue title, a dispatch input) would become shell source. The planner already put
 * the `__GH_AW_…__` placeholder of each expression the prompt substitutes (the value then arrives through
 * `env:`); any other one (secrets, vars, outputs of later jobs) stays literal text, its `$` written as an
 * expression of its own so GitHub never evaluates the rest.
 */
export function inlinedPromptText(text: string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (all) => "${{ '$' }}" + all.slice(1));
}

/** The expressions the prompt substitutes (env name → expression). */
export function promptExpressions(activationInput: ActivationInput): Map<string, string> {
  const exprEnv = new Map<string, string>(activationInput.bodyExprs);
  for (const n of activationInput.experiments?.names ?? []) {
    exprEnv.set(
      `GH_AW_EXPERIMENTS_${n.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`,
      `steps.pick-experiment.outputs.${n}`,
    );
  }
  // The GitHub context block (only with the GitHub tool) reads these.
  if (activationInput.githubTool) {
    for (const [, e] of CONTEXT_EXPRS) exprEnv.set(exprEnvName(e), e);
    for (const e of ["github.actor", "github.repository", "github.run_id", "github.workspace"]) {
      exprEnv.set(exprEnvName(e), e);
    }
  }
  if (activationInput.repoMemory && activationInput.repoMemory.wiki !== true) {
    exprEnv.set("GH_AW_WIKI_NOTE", "''");
  }
  const promptExprs = new Map(exprEnv);
  if (activationInput.prContext) {
    if (targetOf(activationInput.ctx).jobs.activation.promptFromJson) {
      promptExprs.set("GH_AW_INCLUDE_PR_CONTEXT", PR_CONTEXT_CONDITION);
    } else promptExprs.set("GH_AW_IS_PR_COMMENT", "github.event.issue.pull_request && 'true' || ''");
  }
  return promptExprs;
}

/** The prompt file of the activation job's steps, as the target writes it. */
export function promptPathValue(ctx: JobCtx): YValue {
  const path = targetOf(ctx).jobs.activation.promptPath;
  return path.includes("${{") ? plain(path) : path;
}

/** The events whose prompt includes the PR context (`GH_AW_INCLUDE_PR_CONTEXT`, prompts built from JSON). */
const PR_CONTEXT_CONDITION =
  "(github.event_name == 'issue_comment' && github.event.issue.pull_request != null) || " +
  "github.event_name == 'pull_request_review_comment' || github.event_name == 'pull_request_review'";

/** One part of the prompt: literal text, a runtime fragment file (maybe conditional), or shell lines. */
type PromptPart = { text: string } | { file: string; conditionEnv?: string } | { raw: string[] };

/**
 * "Create prompt with built-in context" of a release that builds the prompt with `create_prompt.cjs` (v0.86.2):
 * `GH_AW_PROMPT_CONFIG` lists the parts in order — each text its own `GH_AW_PROMPT_CONTENT_nnnn` env value,
 * each fragment a file, the PR context a file gated by `GH_AW_INCLUDE_PR_CONTEXT`.
 */
function jsonPromptStep(parts: PromptPart[], promptEnv: Record<string, YValue>, ctx: JobCtx): StepPlan {
  const items: Record<string, string>[] = [];
  const contents: Record<string, YValue> = {};
  for (const p of parts) {
    if ("text" in p) {
      const env = `GH_AW_PROMPT_CONTENT_${String(Object.keys(contents).length).padStart(4, "0")}`;
      contents[env] = dq(`${p.text}\n`);
      items.push({ content_env: env });
    } else if ("file" in p) {
      items.push(p.conditionEnv ? { file: p.file, condition_env: p.conditionEnv } : { file: p.file });
    }
  }
  const { GH_AW_PROMPT: prompt, GH_AW_SAFE_OUTPUTS: outputs, ...exprs } = promptEnv;
  return {
    name: "Create prompt with built-in context",
    uses: plain(ctx.refs.githubScript),
    env: {
      GH_AW_ACTIONS_DIR: plain("${{ runner.temp }}/gh-aw/actions"),
      GH_AW_PROMPT: prompt,
      GH_AW_SAFE_OUTPUTS: outputs,
      GH_AW_PROMPT_CONFIG: dq(JSON.stringify({ items })),
      ...exprs,
      ...contents,
    },
    with: {
      script: lit(
        "const { setupGlobals } = require(process.env.GH_AW_ACTIONS_DIR + '/setup_globals.cjs');\n" +
          "setupGlobals(core, github, context, exec, io, getOctokit);\n" +
          "const { main } = require(process.env.GH_AW_ACTIONS_DIR + '/create_prompt.cjs');\n" +
          "await main(core);\n",
      ),
    },
  };
}

/** "Create prompt with built-in context": the system prompt fragments, the context block and the body. */
export function createPromptStep(
  activationInput: ActivationInput,
  promptExprs: Map<string, string>,
): StepPlan {
  const delim = heredocDelimiter("PROMPT", activationInput.frontmatterHash);
  const promptEnv: Record<string, YValue> = {
    GH_AW_PROMPT: promptPathValue(activationInput.ctx),
    GH_AW_SAFE_OUTPUTS: plain("${{ runner.temp }}/gh-aw/safeoutputs/outputs.jsonl"),
  };
  for (const k of [...promptExprs.keys()].sort()) promptEnv[k] = plain(`\${{ ${promptExprs.get(k)} }}`);
  const lines: string[] = ['bash "${RUNNER_TEMP}/gh-aw/actions/create_prompt_first.sh"', "{"];
  // Parts: literal text (adjacent texts share one quoted heredoc) or a runtime prompt fragment file.
  const style = targetOf(activationInput.ctx).jobs.activation;
  const json = style.promptFromJson;
  const parts: PromptPart[] = [];
  const block = (text: string) => parts.push({ text });
  const cat = (f: string) => parts.push({ file: f });
  block("<system>");
  cat("xpia.md");
  cat("temp_folder_prompt.md");
  cat("markdown.md");
  for (const f of activationInput.promptFragments) cat(f);
  cat("safe_outputs_prompt.md");
  block(`<safe-output-tools>\nTools: ${activationInput.safeOutputTools.join(", ")}`);
  if (activationInput.autoCreateIssue) cat("safe_outputs_auto_create_issue.md");
  for (const f of activationInput.safeOutputFragments) cat(f);
  // The upload_asset note follows the per-type fragments (e.g. create_pull_request's), as gh-aw orders them.
  if (activationInput.safeOutputTools.some((t) => t.startsWith("upload_asset"))) {
    block(
      "\nupload_asset: provide a file path; returns a URL; assets are published after the workflow completes (safeoutputs).",
    );
  }
  block("</safe-output-tools>");
  cat(style.mcpCliPrompt);
  // Without the GitHub tool there is no context block; the `gh` CLI guidance stays with `features.cli-proxy`.
  if (activationInput.githubTool) block(githubContextBlock(activationInput));
  if (activationInput.cliProxy) cat("cli_proxy_with_safeoutputs_prompt.md");
  else if (activationInput.githubTool) cat("github_mcp_tools_with_safeoutputs_prompt.md");
  if (activationInput.prContext && json) {
    parts.push({ file: "pr_context_prompt.md", conditionEnv: "GH_AW_INCLUDE_PR_CONTEXT" });
    if (activationInput.prContextPushGuidance) {
      parts.push({
        file: "pr_context_push_to_pr_branch_guidance.md",
        conditionEnv: "GH_AW_INCLUDE_PR_CONTEXT",
      });
    }
  } else if (activationInput.prContext) {
    parts.push({
      raw: [
        'if [ "$GITHUB_EVENT_NAME" = "issue_comment" ] && [ -n "$GH_AW_IS_PR_COMMENT" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review_comment" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review" ]; then',
        '  cat "${RUNNER_TEMP}/gh-aw/prompts/pr_context_prompt.md"',
        "fi",
      ],
    });
    if (activationInput.prContextPushGuidance) {
      parts.push({
        raw: [
          'if [ "$GITHUB_EVENT_NAME" = "issue_comment" ] && [ -n "$GH_AW_IS_PR_COMMENT" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review_comment" ] || [ "$GITHUB_EVENT_NAME" = "pull_request_review" ]; then',
          '  cat "${RUNNER_TEMP}/gh-aw/prompts/pr_context_push_to_pr_branch_guidance.md"',
          "fi",
        ],
      });
    }
  }
  if (json) {
    // Each text its own part: the system prompt's end, then each import and the body.
    block("</system>");
    for (const piece of activationInput.inlinedPieces ?? []) {
      block(inlinedPromptText(piece).replace(/^\n+/, ""));
    }
    for (const p of activationInput.runtimeImports) {
      block(typeof p === "string" ? `{{#runtime-import ${p}}}` : `${p.inline}\n`);
    }
    return jsonPromptStep(parts, promptEnv, activationInput.ctx);
  }
  if (activationInput.inlinedBody !== undefined) {
    block(`</system>\n${inlinedPromptText(activationInput.inlinedBody)}`);
  } else {
    block(
      [
        "</system>",
        ...activationInput.runtimeImports.map((
          p,
        ) => (typeof p === "string" ? `{{#runtime-import ${p}}}` : `${p.inline}\n\n`)),
      ].join("\n"),
    );
  }
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if ("file" in p) {
      lines.push(`cat "\${RUNNER_TEMP}/gh-aw/prompts/${p.file}"`);
      continue;
    }
    if ("raw" in p) {
      lines.push(...p.raw);
      continue;
    }
    const texts = [p.text];
    while (i + 1 < parts.length && "text" in parts[i + 1]) texts.push((parts[++i] as { text: string }).text);
    lines.push(`cat << '${delim}'`, ...texts.join("\n").split("\n"), delim);
  }
  lines.push('} > "$GH_AW_PROMPT"');
  return {
    name: "Create prompt with built-in context",
    env: promptEnv,
    "#": POUTINE,
    run: lit(lines.join("\n") + "\n"),
  };
}

/** The `<github-context>` block of the prompt. */
export function githubContextBlock(activationInput: ActivationInput): string {
  const ctxLines = [
    "<github-context>",
    "The following GitHub context information is available for this workflow:",
    "{{#if github.actor}}",
    "- **actor**: __GH_AW_GITHUB_ACTOR__",
    "{{/if}}",
    "{{#if github.repository}}",
    "- **repository**: __GH_AW_GITHUB_REPOSITORY__",
    "{{/if}}",
    "{{#if github.workspace}}",
    "- **workspace**: __GH_AW_GITHUB_WORKSPACE__",
    "{{/if}}",
  ];
  for (const [kind, e] of [CONTEXT_EXPRS[2], CONTEXT_EXPRS[0], CONTEXT_EXPRS[1]]) {
    const cond = e.replace(new RegExp(CTX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g"), "github.aw.context");
    const label = kind === "pull_request" ? "pull-request" : kind;
    ctxLines.push(`{{#if ${cond}}}`, `- **${label}-number**: #__${exprEnvName(e)}__`, "{{/if}}");
  }
  ctxLines.push(
    `{{#if github.event.comment.id || github.aw.context.comment_id}}`,
    `- **comment-id**: __${exprEnvName(CONTEXT_EXPRS[3][1])}__`,
    "{{/if}}",
    "{{#if github.run_id}}",
    "- **workflow-run-id**: __GH_AW_GITHUB_RUN_ID__",
    "{{/if}}",
    ...checkoutLines(activationInput.checkouts ?? []),
    "</github-context>",
    "",
  );
  return ctxLines.join("\n");
}

/** "Interpolate variables and render templates". */
export function interpolateStep(activationInput: ActivationInput): StepPlan {
  const { ctx } = activationInput;
  return scriptStep(ctx, "Interpolate variables and render templates", "interpolate_prompt", {
    env: {
      GH_AW_PROMPT: promptPathValue(ctx),
      GH_AW_ENGINE_ID: dq(ctx.engine.id),
      // In gh-aw's extraction order (the planner places the experiment values among them).
      ...Object.fromEntries(
        [...activationInput.bodyExprs].map(([k, e]) => [k, plain(`\${{ ${e} }}`)]),
      ),
    },
  });
}

/** "Substitute placeholders": every `__GH_AW_…__` placeholder of the prompt and its value. */
export function substituteStep(activationInput: ActivationInput, promptExprs: Map<string, string>): StepPlan {
  const { ctx } = activationInput;
  const subEnv: Record<string, YValue> = { GH_AW_PROMPT: promptPathValue(ctx) };
  const cliList = activationInput.mcpCliServers.map((n) =>
    `- \`${n}\` — run \`${n} --help\` to see available tools`
  ).join(
    "\n",
  );
  const subVars = new Map<string, YValue>();
  for (const k of promptExprs.keys()) subVars.set(k, plain(`\${{ ${promptExprs.get(k)} }}`));
  subVars.set("GH_AW_MCP_CLI_SERVERS_LIST", cliList.includes("\n") ? dq(cliList) : sq(cliList));
  if (activationInput.hasPreActivation) {
    subVars.set(
      "GH_AW_NEEDS_PRE_ACTIVATION_OUTPUTS_ACTIVATED",
      plain("${{ needs.pre_activation.outputs.activated }}"),
    );
    if (activationInput.commands) {
      subVars.set(
        "GH_AW_NEEDS_PRE_ACTIVATION_OUTPUTS_MATCHED_COMMAND",
        plain("${{ needs.pre_activation.outputs.matched_command }}"),
      );
    }
  }
  memoryPlaceholders(activationInput, subVars);
  const subKeys = [...subVars.keys()].sort();
  for (const k of subKeys) subEnv[k] = subVars.get(k)!;
  const subs = subKeys.map((k) => `    ${k}: process.env.${k}`).join(",\n");
  return {
    name: "Substitute placeholders",
    uses: plain(ctx.refs.githubScript),
    env: subEnv,
    with: {
      script: lit(
        "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
          "setupGlobals(core, github, context, exec, io, getOctokit);\n\n" +
          "const substitutePlaceholders = require('${{ runner.temp }}/gh-aw/actions/substitute_placeholders.cjs');\n\n" +
          "// Call the substitution function\nreturn await substitutePlaceholders({\n  file: process.env.GH_AW_PROMPT,\n" +
          `  substitutions: {\n${subs}\n  }\n});\n`,
      ),
    },
  };
}

/** The repo-memory and cache-memory placeholders. */
export function memoryPlaceholders(activationInput: ActivationInput, subVars: Map<string, YValue>): void {
  const { ctx } = activationInput;
  if (activationInput.repoMemory) {
    const m = activationInput.repoMemory;
    const num = (v: unknown, d: number) => (typeof v === "number" ? v : Number(v) || d);
    const fileSize = num(m["max-file-size"], 102400);
    const patch = num(m["max-patch-size"], 10240);
    const count = num(m["max-file-count"], 100);
    const globs = Array.isArray(m["file-glob"])
      ? m["file-glob"].map(String)
      : typeof m["file-glob"] === "string"
      ? [m["file-glob"]]
      : [];
    const constraints = "\n\n**Constraints:**\n" +
      (globs.length ? `- **Allowed Files**: Only files matching patterns: ${globs.join(", ")}\n` : "") +
      `- **Max File Size**: ${fileSize} bytes (${goFixed2(fileSize / 1048576)} MB) per file\n` +
      `- **Max File Count**: ${count} files per commit\n` +
      `- **Max Patch Size**: ${patch} bytes (${Math.round(patch / 1024)} KB) total per push (max: 1024 KB)\n`;
    const wiki = m.wiki === true;
    subVars.set("GH_AW_MEMORY_BRANCH_NAME", sq(memoryBranch(m, ctx)));
    subVars.set("GH_AW_MEMORY_CONSTRAINTS", dq(constraints));
    subVars.set("GH_AW_MEMORY_DESCRIPTION", sq(m.description ? ` ${m.description}` : ""));
    subVars.set("GH_AW_MEMORY_DIR", sq("/tmp/gh-aw/repo-memory/default/"));
    subVars.set("GH_AW_MEMORY_TARGET_REPO", sq(" of the current repository"));
    subVars.set("GH_AW_WIKI_NOTE", wiki ? dq(WIKI_NOTE) : sq(""));
  }
  if (activationInput.repoMemoryList) {
    subVars.set("GH_AW_MEMORY_ALLOWED_EXTENSIONS", sq(""));
    subVars.set(
      "GH_AW_MEMORY_LIST",
      dq(
        activationInput.repoMemoryList.map((m) => {
          const id = String(m.id ?? "default");
          const branch = targetOf(ctx).jobs.repoMemoryBranchByWorkflow
            ? memoryBranch(m, ctx)
            : String(m["branch-name"] ?? `memory/${id}`);
          return `- **${id}**: \`/tmp/gh-aw/repo-memory/${id}/\` (branch: \`${branch}\`)\n`;
        }).join(""),
      ),
    );
  }
  if (
    activationInput.promptFragments.includes("cache_memory_prompt_multi.md") &&
    Array.isArray(activationInput.cacheMemory)
  ) {
    const dirs = (activationInput.cacheMemory as (Mapping | null)[]).map((c) => {
      const id = String(c?.id ?? "default");
      return [id, id === "default" ? "/tmp/gh-aw/cache-memory/" : `/tmp/gh-aw/cache-memory-${id}/`];
    });
    subVars.set("GH_AW_ALLOWED_EXTENSIONS", sq(""));
    subVars.set(
      "GH_AW_CACHE_EXAMPLES",
      dq(
        dirs.map(([, d]) =>
          `- \`${d}notes.txt\` - general notes and observations\n` +
          `- \`${d}notes.md\` - markdown formatted notes\n` +
          `- \`${d}preferences.json\` - user preferences and settings\n` +
          `- \`${d}history.jsonl\` - activity history in JSON Lines format\n` +
          `- \`${d}data.csv\` - tabular data\n` +
          `- \`${d}state/\` - organized state files in subdirectories (with allowed file types)\n`
        ).join(""),
      ),
    );
    subVars.set("GH_AW_CACHE_LIST", dq(dirs.map(([id, d]) => `- **${id}**: \`${d}\`\n`).join("")));
  } else if (activationInput.promptFragments.some((f) => f.startsWith("cache_memory_prompt"))) {
    const cfg = mappingOf(activationInput.cacheMemory);
    const exts = Array.isArray(cfg["allowed-extensions"]) ? cfg["allowed-extensions"].map(String) : [];
    subVars.set(
      "GH_AW_ALLOWED_EXTENSIONS",
      // gh-aw writes the value double-quoted with its leading newline escaped.
      exts.length ? dq(`\n<allowed-extensions>${exts.join(",")}</allowed-extensions>`) : sq(""),
    );
    subVars.set("GH_AW_CACHE_DESCRIPTION", sq(""));
    subVars.set("GH_AW_CACHE_DIR", sq("/tmp/gh-aw/cache-memory/"));
  }
}

/** The `- **checkouts**` lines of the GitHub context (gh-aw v0.76 wording), one per configured checkout. */
export function checkoutLines(checkouts: Record<string, unknown>[]): string[] {
  if (checkouts.length === 0) return [];
  const out = [
    "- **checkouts**: The following repositories have been checked out and are available in the workspace:",
  ];
  for (const c of checkouts) {
    let rel = typeof c.path === "string" ? c.path.replace(/^\.\//, "") : "";
    if (rel === ".") rel = "";
    let repo = typeof c.repository === "string" && c.repository
      ? c.repository
      : "__GH_AW_GITHUB_REPOSITORY__";
    if (c.wiki === true && !repo.endsWith(".wiki")) repo += ".wiki";
    let line = `  - repo \`${repo}\` → \`$GITHUB_WORKSPACE${rel ? "/" + rel : ""}\``;
    if (!rel) line += " (cwd)";
    if (c.wiki === true) line += " (wiki)";
    if (c.current === true) {
      line += " (**current** - this is the repository you are working on; use this as the target for all " +
        "GitHub operations unless otherwise specified)";
    }
    const depth = c["fetch-depth"];
    if (depth === 0) line += " [full history, all branches available as remote-tracking refs]";
    else if (typeof depth === "number") line += ` [shallow clone, fetch-depth=${depth}]`;
    else line += " [shallow clone, fetch-depth=1 (default)]";
    const fetch = c.fetch === undefined
      ? []
      : Array.isArray(c.fetch)
      ? c.fetch.map(String)
      : [String(c.fetch)];
    if (fetch.length > 0) line += ` [additional refs fetched: ${fetch.join(", ")}]`;
    if (typeof c["sparse-checkout"] === "string" && c["sparse-checkout"].trim() !== "") {
      line += " [sparse checkout enabled]";
    }
    out.push(line);
  }
  out.push(
    "  - **Note**: If a branch you need is not in the list above and is not listed as an additional fetched ref, " +
      "it has NOT been checked out. For private repositories you cannot fetch it without proper authentication. " +
      "If the branch is required and not available, exit with an error and ask the user to add it to the " +
      '`fetch:` option of the `checkout:` configuration (e.g., `fetch: ["refs/pulls/open/*"]` for all open PR refs, ' +
      'or `fetch: ["main", "feature/my-branch"]` for specific branches).',
  );
  return out;
}

/** Prompt note gh-aw substitutes when `repo-memory.wiki` backs the memory with the repository wiki. */
const WIKI_NOTE = "\n\n> **GitHub Wiki**: This memory is backed by the GitHub Wiki for this repository. " +
  "Files use GitHub Wiki Markdown syntax. Follow GitHub Wiki conventions when creating or editing pages " +
  "(e.g., use standard Markdown headers, use `[[Page Name]]` syntax for internal wiki links, name page " +
  "files with spaces replaced by hyphens or use the wiki page title as the filename).";
