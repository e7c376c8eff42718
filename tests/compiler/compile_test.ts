import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compile, parseSchedule, readLockMetadata, writeCompileResult } from "../../compiler/mod.ts";
import { compileOne, diagnosticsOf, memoryRepo } from "./helpers.ts";
import { tempDir } from "@switchyard/lib/testing.ts";

type Job = { steps: Record<string, unknown>[]; [k: string]: unknown };
const jobs = (lock: string) => parse(lock).jobs as Record<string, Job>;
const step = (job: Job, name: string) => job.steps.find((s) => s.name === name) as Record<string, unknown>;

Deno.test("workflow_dispatch inputs get the aw_context input and reach the prompt through GH_AW_ env vars", async () => {
  const { lock } = await compileOne(
    "---\non:\n  workflow_dispatch:\n    inputs:\n      topic:\n        type: string\n---\nResearch ${{ inputs.topic }} with ${{ env.TEAM }} but keep ${HOME}.\n",
  );
  const y = parse(lock);
  assertEquals(Object.keys(y.on.workflow_dispatch.inputs), ["aw_context", "topic"]);
  const create = step(jobs(lock).activation, "Create prompt with built-in context");
  const env = create.env as Record<string, string>;
  assertEquals(env.GH_AW_INPUTS_TOPIC, "${{ inputs.topic }}");
  assertEquals(env.GH_AW_ENV_TEAM, "${{ env.TEAM }}");
  assert(!(create.run as string).includes("${HOME}"), "the body is loaded at run time, not inlined");
  assert(/cat << 'GH_AW_PROMPT_[0-9a-f]{16}_EOF'/.test(create.run as string), "quoted heredoc");
  assertIncludes(create.run as string, "{{#runtime-import .github/workflows/w.md}}");
});

Deno.test("repository_dispatch client_payload fields are delivered like inputs", async () => {
  const { lock } = await compileOne(
    "---\non:\n  repository_dispatch:\n    types: [deploy]\n---\nCheck ${{ github.event.client_payload.env }}.\n",
  );
  const y = parse(lock);
  assertEquals(y.on.repository_dispatch, { types: ["deploy"] });
  const env = step(jobs(lock).activation, "Create prompt with built-in context").env as Record<
    string,
    string
  >;
  assertEquals(env.GH_AW_GITHUB_EVENT_CLIENT_PAYLOAD_ENV, "${{ github.event.client_payload.env }}");
});

Deno.test("slash_command expands to its events with an early-exit condition and a pre_activation gate", async () => {
  const { lock } = await compileOne(
    "---\non:\n  slash_command:\n    name: fix\n    events: [issue_comment]\n---\nFix it.\n",
  );
  const y = parse(lock);
  assertEquals(Object.keys(y.on), ["issue_comment"]);
  const j = jobs(lock);
  assertIncludes(String(j.pre_activation.if), "startsWith(github.event.comment.body, '/fix ')");
  assertEquals(j.activation.needs, "pre_activation");
  assertIncludes(JSON.stringify(step(j.pre_activation, "Check command position").env), "fix");
});

Deno.test("label_command listens to labeled events and adds the label to the concurrency group", async () => {
  const { lock } = await compileOne(
    "---\non:\n  label_command:\n    name: review\n    events: [pull_request]\n---\nReview.\n",
  );
  const y = parse(lock);
  assertEquals(y.on.pull_request, { types: ["labeled"] });
  assertIncludes(y.concurrency.group, "github.event.label.name");
});

Deno.test("fuzzy schedules are scattered by the seed and annotated; the seed changes the cron", async () => {
  const md = "---\non:\n  schedule: daily\n---\nGo.\n";
  const a = parse((await compileOne(md)).lock);
  const b = parse((await compileOne(md, {}, { scheduleSeed: "other/repo" })).lock);
  assert(/^\d+ \d+ \* \* \*$/.test(a.on.schedule[0].cron));
  assertEquals(
    a.on.schedule[0].cron,
    (parseSchedule("daily", "acme/widgets/.github/workflows/w.md") as { cron: string }).cron,
  );
  assertEquals(
    b.on.schedule[0].cron,
    (parseSchedule("daily", "other/repo/.github/workflows/w.md") as { cron: string }).cron,
  );
  assertIncludes((await compileOne(md)).lock, "# Friendly format: daily (scattered)");
  // gh-aw adds a manual trigger to every fuzzy schedule (corpus: code-simplifier, smoke-ci).
  assertEquals(Object.keys(a.on), ["schedule", "workflow_dispatch"]);
  const exact = parse((await compileOne("---\non:\n  schedule:\n    - cron: '0 9 * * 1'\n---\nGo.\n")).lock);
  assertEquals(Object.keys(exact.on), ["schedule"]);
});

Deno.test("the metadata header carries hashes the runtime stale check recomputes", async () => {
  const md = "---\non: daily\n---\nGo.\n";
  const { lock } = await compileOne(md);
  const meta = readLockMetadata(lock)!;
  assertEquals(meta.schema_version, "v4");
  // sha256('{"frontmatter-text":"on: daily"}')
  assertEquals(meta.frontmatter_hash, "d8b18e880607c5564fd884ec77ede336b950852eee51ebe72cd6399ae9197d30");
  assert(/^[0-9a-f]{64}$/.test(meta.body_hash!));
  assertEquals(meta.agent_id, "copilot");
});

Deno.test("every uses: is pinned to a 40-hex SHA with a version comment", async () => {
  const { lock } = await compileOne(
    "---\non: daily\nsteps:\n  - uses: actions/setup-node@v6.4.0\n---\nGo.\n",
  );
  for (const m of lock.matchAll(/uses: (\S+)(.*)/g)) {
    if (m[1].startsWith("./")) continue;
    assert(/@[0-9a-f]{40}$/.test(m[1]) && / # v\d/.test(m[2]), `unpinned: ${m[0]}`);
  }
  assertIncludes(lock, "github/gh-aw-actions/setup@46d564922b082d0db93244972e8005ea6904ee5f # v0.76.1");
});

Deno.test("an action missing from every source fails with a hint; a resolver fills the actions lock", async () => {
  const md = "---\non: daily\nsteps:\n  - uses: acme/tool@v2.0.0\n---\nGo.\n";
  const d = await diagnosticsOf(md);
  assertEquals(
    d.find((x) => x.code === "unpinned-action")?.message,
    "cannot pin action acme/tool@v2.0.0 to a commit SHA",
  );
  const { lock, result } = await compileOne(md, {}, { resolveAction: () => Promise.resolve("a".repeat(40)) });
  assertIncludes(lock, `acme/tool@${"a".repeat(40)} # v2.0.0`);
  assertEquals(JSON.parse(result.actionsLock!).entries["acme/tool@v2.0.0"].sha, "a".repeat(40));
});

Deno.test("ghes swaps the artifact actions to v3; an enterprise host without it fails with GHESNotSupportedError", async () => {
  const { lock } = await compileOne("---\non: daily\n---\nGo.\n", {}, { ghes: true });
  assertIncludes(lock, "actions/upload-artifact@c6a366c94c3e0affe28c06c8df20a878f24da3cf # v3.2.2");
  assertIncludes(lock, "actions/download-artifact@a9bc5e6ef2cb54c177f32aa5726adaa15e7e2d59 # v3.1.0");
  const prior = Deno.env.get("GH_HOST");
  Deno.env.set("GH_HOST", "ghe.example.com");
  try {
    const r = await compile({
      repoRoot: "/r",
      workflows: ["w"],
      readFile: memoryRepo({ ".github/workflows/w.md": "---\non: daily\n---\nGo\n" }),
    });
    assertEquals(r.diagnostics[0].code, "GHESNotSupportedError");
    assertIncludes(r.diagnostics[0].hint!, "--ghes");
    const ok = await compile({
      repoRoot: "/r",
      workflows: ["w"],
      readFile: memoryRepo({
        ".github/workflows/w.md": "---\non: daily\n---\nGo\n",
        ".github/workflows/aw.json": '{"ghes": true}',
      }),
    });
    assert(ok.workflows[0].lockContent);
  } finally {
    if (prior === undefined) Deno.env.delete("GH_HOST");
    else Deno.env.set("GH_HOST", prior);
  }
});

Deno.test("engines: claude passes max-turns, crush picks its key from provider/model, OAuth tokens are refused", async () => {
  const claude = await compileOne("---\non: daily\nengine:\n  id: claude\n  max-turns: 7\n---\nGo.\n");
  assertIncludes(claude.lock, "--max-turns 7");
  assertIncludes(claude.lock, 'validate_multi_secret.sh" ANTHROPIC_API_KEY');
  const crush = await compileOne("---\non: daily\nengine:\n  id: crush\n  model: openai/gpt-5\n---\nGo.\n");
  assertIncludes(crush.lock, 'validate_multi_secret.sh" CODEX_API_KEY OPENAI_API_KEY');
  const d = await diagnosticsOf(
    "---\non: daily\nengine:\n  id: claude\n  env:\n    CLAUDE_CODE_OAUTH_TOKEN: ${{ secrets.CLAUDE_CODE_OAUTH_TOKEN }}\n---\nGo.\n",
  );
  assertEquals(d.map((x) => x.code), ["oauth-token-unsupported"]);
  const copilot = await compileOne("---\non: daily\npermissions:\n  copilot-requests: write\n---\nGo.\n");
  assert(!copilot.lock.includes("Validate COPILOT_GITHUB_TOKEN"), "copilot-requests uses the workflow token");
});

Deno.test("safe-output defaults follow the spec", async () => {
  const { lock } = await compileOne(
    "---\non: daily\nsafe-outputs:\n  create-pull-request: {}\n  create-discussion: {}\n  add-comment: {}\n  dispatch-workflow:\n    workflows: [x]\n  allowed-github-references: []\n---\nGo.\n",
  );
  const env = step(jobs(lock).safe_outputs, "Process Safe Outputs").env as Record<string, string>;
  const cfg = JSON.parse(env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG);
  assertEquals(cfg.create_pull_request.fallback_as_issue, undefined, "runtime default (true) applies");
  assertEquals(cfg.create_discussion.fallback_to_issue, true);
  assertEquals(cfg.add_comment.discussions, false);
  assertEquals(cfg.dispatch_workflow.max, 1);
  const ingest = step(jobs(lock).agent, "Ingest agent output").env as Record<string, string>;
  assertEquals(ingest.GH_AW_ALLOWED_GITHUB_REFS, "", "an empty list escapes every reference");
  assertEquals(env.GH_AW_CI_TRIGGER_TOKEN, "${{ secrets.GH_AW_CI_TRIGGER_TOKEN }}");
  const perms = jobs(lock).safe_outputs.permissions as Record<string, string>;
  assertEquals(perms, {
    actions: "write",
    contents: "write",
    discussions: "write",
    issues: "write",
    "pull-requests": "write",
  });
  assert(jobs(lock).detection, "threat detection runs when safe-outputs is configured");
  const off = await compileOne(
    "---\non: daily\nsafe-outputs:\n  create-pull-request:\n    fallback-as-issue: false\n---\nGo.\n",
  );
  const offEnv = step(jobs(off.lock).safe_outputs, "Process Safe Outputs").env as Record<string, string>;
  assertEquals(
    JSON.parse(offEnv.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG).create_pull_request.fallback_as_issue,
    false,
  );
});

Deno.test("no safe-outputs enables create-issue automatically without detection", async () => {
  const { lock } = await compileOne("---\non: daily\n---\nGo.\n");
  const env = step(jobs(lock).safe_outputs, "Process Safe Outputs").env as Record<string, string>;
  assertEquals(JSON.parse(env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG), {
    create_issue: { labels: ["w"], max: 1, title_prefix: "[w]" },
  });
  assertEquals(jobs(lock).detection, undefined);
});

Deno.test("approval gates: safe_outputs waits for a custom job with an environment", async () => {
  const { lock } = await compileOne(
    "---\non: daily\njobs:\n  approve:\n    runs-on: ubuntu-latest\n    environment: prod\n    steps:\n      - run: echo ok\nsafe-outputs:\n  needs: [approve]\n  create-issue: {}\n---\nGo.\n",
  );
  const j = jobs(lock);
  assertEquals(j.approve.environment, "prod");
  assert((j.safe_outputs.needs as string[]).includes("approve"));
  const d = await diagnosticsOf(
    "---\non: daily\nsafe-outputs:\n  needs: [nope]\n  create-issue: {}\n---\nGo.\n",
  );
  assertEquals(d.map((x) => x.code), ["unknown-job"]);
});

Deno.test("network ecosystems expand into the firewall allowlist", async () => {
  const { lock } = await compileOne(
    "---\non: daily\nnetwork:\n  allowed: [defaults, python, api.example.com]\n---\nGo.\n",
  );
  const run = String(step(jobs(lock).agent, "Execute GitHub Copilot CLI").run);
  for (const d of ["pypi.org", "api.example.com", "archive.ubuntu.com", "api.githubcopilot.com"]) {
    assertIncludes(run, `"${d}"`);
  }
  assert(!run.includes('"registry.yarnpkg.com"'));
});

Deno.test("macOS runners in custom jobs are refused", async () => {
  const d = await diagnosticsOf(
    "---\non: daily\njobs:\n  mac:\n    runs-on: macos-14\n    steps: [{run: x}]\n---\nGo.\n",
  );
  assertEquals(d.map((x) => [x.code, x.line]), [["macos-runner", 5]]);
});

Deno.test("stop-after is resolved once and preserved from the existing lock", async () => {
  const md = "---\non:\n  schedule: daily\n  stop-after: +2d\n---\nGo.\n";
  const first = await compileOne(md);
  const stop = readLockMetadata(first.lock)!.stop_time!;
  assert(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(stop));
  const again = await compileOne(md, {
    ".github/workflows/w.lock.yml": first.lock.replace(stop, "2031-05-05 05:05:05"),
  });
  assertEquals(readLockMetadata(again.lock)!.stop_time, "2031-05-05 05:05:05");
  assertIncludes(again.lock, "# Effective stop-time: 2031-05-05 05:05:05");
});

Deno.test("inlined-imports embeds the bodies at compile time", async () => {
  const { lock } = await compileOne(
    "---\non: daily\ninlined-imports: true\nimports:\n  - shared/a.md\n---\nMain body.\n",
    { ".github/workflows/shared/a.md": "---\n---\nImported body.\n" },
  );
  assertIncludes(lock, "Imported body.");
  assertIncludes(lock, "# inlined-imports: true");
  assert(!lock.includes("{{#runtime-import"));
});

Deno.test("writeCompileResult writes a lock only when it changed", async () => {
  await using dir = await tempDir("awc-");
  await Deno.mkdir(`${dir.path}/.github/workflows`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/.github/workflows/w.md`, "---\non: daily\n---\nGo.\n");
  const first = await writeCompileResult(dir.path, await compile({ repoRoot: dir.path }));
  assertEquals(first.written, [".github/workflows/w.lock.yml"]);
  const second = await writeCompileResult(dir.path, await compile({ repoRoot: dir.path }));
  assertEquals([second.written, second.unchanged], [[], [".github/workflows/w.lock.yml"]]);
});

Deno.test("diagnostics point at the original file, line and column", async () => {
  const d = await diagnosticsOf("---\non: daily\ntools:\n  githubb: {}\n---\nGo.\n");
  assertEquals(d.map((x) => [x.file, x.line, x.column, x.code]), [[
    ".github/workflows/w.md",
    4,
    3,
    "unknown-key",
  ]]);
});

Deno.test("cache-memory and repo-memory add their persistence jobs before the conclusion", async () => {
  const { lock } = await compileOne(
    "---\non: daily\ntools:\n  cache-memory: true\n  repo-memory:\n    branch-name: memory/w\n    max-patch-size: 2048\nsafe-outputs:\n  create-issue: {}\n---\nGo.\n",
  );
  const j = jobs(lock);
  assertEquals(j.update_cache_memory.needs, ["activation", "agent", "detection"]);
  const push = step(j.push_repo_memory, "Push repo-memory changes (default)").env as Record<string, unknown>;
  assertEquals([push.BRANCH_NAME, push.MAX_PATCH_SIZE], ["memory/w", 2048]);
  assertEquals(j.push_repo_memory.permissions, { contents: "write" });
  assertEquals(j.conclusion.needs, [
    "activation",
    "agent",
    "detection",
    "push_repo_memory",
    "safe_outputs",
    "update_cache_memory",
  ]);
  const prompt = String(step(j.activation, "Create prompt with built-in context").run);
  assertIncludes(prompt, "cache_memory_prompt.md");
  assertIncludes(prompt, "repo_memory_prompt.md");
});

Deno.test("experiments pick a variant in activation and persist their state", async () => {
  const { lock } = await compileOne(
    "---\non: daily\nexperiments:\n  tone:\n    variants: [calm, terse]\n    metric: effective_tokens\n    guardrail_metrics:\n      - name: ok\n        threshold: '>=0.9'\n---\n{{#if (eq experiments.tone \"terse\")}}Be terse.{{/if}}\n",
  );
  const j = jobs(lock);
  const pick = step(j.activation, "Pick experiment variants").env as Record<string, string>;
  assertEquals(
    pick.GH_AW_EXPERIMENT_SPEC,
    '{"tone":{"variants":["calm","terse"],"metric":"effective_tokens","guardrail_metrics":[{"name":"ok","threshold":"\\u003e=0.9"}]}}',
  );
  assertEquals(
    (j.activation.outputs as Record<string, string>).tone,
    "${{ steps.pick-experiment.outputs.tone }}",
  );
  assertEquals(j.push_experiments_state.needs, "activation");
  const env = step(j.activation, "Create prompt with built-in context").env as Record<string, string>;
  assertEquals(env.GH_AW_EXPERIMENTS_TONE, "${{ steps.pick-experiment.outputs.tone }}");
});

Deno.test("slash commands react, post a status comment and update it from the conclusion", async () => {
  const { lock } = await compileOne(
    "---\non:\n  slash_command:\n    name: fix\n  reaction: rocket\n---\nFix.\n",
  );
  const j = jobs(lock);
  assertEquals(
    (step(j.activation, "Add rocket reaction for immediate feedback").env as Record<string, string>)
      .GH_AW_REACTION,
    "rocket",
  );
  assert(step(j.activation, "Add comment with workflow run link"), "status comment");
  assert(step(j.activation, "Compute current body text"), "sanitized trigger text");
  // A slash command on every event reacts on issues, PRs and discussions (corpus: q, scout).
  assertEquals(j.activation.permissions, {
    actions: "read",
    contents: "read",
    discussions: "write",
    issues: "write",
    "pull-requests": "write",
  });
  assert(step(j.conclusion, "Update reaction comment with completion status"));
});

Deno.test("frontmatter services run beside the agent job, written as gh-aw marshals them", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nservices:\n  redis:\n    image: redis:7\n    ports:\n      - 6379:6379\n" +
      '    options: >-\n      --health-cmd "redis-cli ping"\n      --health-retries 5\n---\nPing redis.\n',
  );
  assertIncludes(
    lock,
    "    runs-on: ubuntu-latest\n    services:\n      redis:\n        image: redis:7\n" +
      '        options: --health-cmd "redis-cli ping" --health-retries 5\n        ports:\n        - 6379:6379\n',
  );
  assertEquals(parse(lock).jobs.agent.services.redis.ports, ["6379:6379"]);
});

Deno.test("a wiki repo-memory is pushed to the repository wiki's master branch", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\ntools:\n  repo-memory:\n    wiki: true\n---\nKeep the glossary.\n",
  );
  const job = parse(lock).jobs.push_repo_memory;
  assertEquals(job.concurrency.group, "push-repo-memory-${{ github.repository }}|master");
  const push = job.steps.find((s: { name?: string }) => s.name === "Push wiki-memory changes (default)");
  assertEquals(push.env.TARGET_REPO, "${{ github.repository }}.wiki");
  assertEquals(push.env.BRANCH_NAME, "master");
  assertEquals(push.env.REPO_MEMORY_ALLOWED_REPOS, "${{ github.repository }}.wiki");
  assert(job.steps.some((s: { name?: string }) => s.name === "Download wiki-memory artifact (default)"));
});

Deno.test("an imported custom agent merges its .github folder right after the checkout", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nimports:\n  - ../agents/helper.agent.md\n---\nHelp.\n",
    { ".github/agents/helper.agent.md": "---\ndescription: Helper\n---\nYou help.\n" },
  );
  const steps = parse(lock).jobs.agent.steps as { name?: string; env?: Record<string, string> }[];
  const at = steps.findIndex((s) => s.name === "Merge remote .github folder");
  assertEquals(steps[at - 1].name, "Checkout repository");
  assertEquals(steps[at].env, {
    GH_AW_AGENT_FILE: ".github/agents/helper.agent.md",
    GH_AW_AGENT_IMPORT_SPEC: "../agents/helper.agent.md",
  });
});

Deno.test("a user's own setup-node step is folded into gh-aw's Node.js setup, its inputs carried over", async () => {
  const compileWith = (version: string) =>
    compileOne(
      "---\non: workflow_dispatch\nsteps:\n  - name: Setup Node.js\n    uses: actions/setup-node@v6.4.0\n    with:\n" +
        `      node-version: "${version}"\n      cache: npm\n  - name: Install\n    run: npm ci\n---\nBuild.\n`,
    );
  const { lock } = await compileWith("24");
  const steps = parse(lock).jobs.agent.steps as { name?: string; with?: Record<string, unknown> }[];
  const setups = steps.filter((s) => s.name === "Setup Node.js" && s.with?.["node-version"] !== undefined);
  assertEquals(setups.length, 1);
  assertEquals(setups[0].with, { "node-version": "24", cache: "npm", "package-manager-cache": false });
  assertIncludes(
    lock,
    "          node-version: '24'\n          cache: 'npm'\n          package-manager-cache: false\n",
  );
  // Another version than gh-aw's default is a customisation: the author's step stays as written, alone.
  const custom = await compileWith("22");
  assertIncludes(custom.lock, '          cache: npm\n          node-version: "22"\n');
  assert(
    !custom.lock.includes("package-manager-cache: false\n          node-version"),
    "no setup of gh-aw's own",
  );
});

Deno.test("the manifest lists an action once per pinned commit, so a repository at two commits twice", async () => {
  const md = "---\non: workflow_dispatch\njobs:\n  side:\n    runs-on: ubuntu-latest\n    steps:\n" +
    "      - uses: actions/checkout@v4\n---\nGo.\n";
  const pins = {
    entries: {
      "actions/checkout@v4": {
        repo: "actions/checkout",
        version: "v4",
        sha: "34e114876b0b11c390a56381ad16ebd13914f8d5",
      },
    },
  };
  const { lock } = await compileOne(md, { ".github/aw/actions-lock.json": JSON.stringify(pins) });
  const manifest = JSON.parse(/^# gh-aw-manifest: (.*)$/m.exec(lock)![1]);
  const checkouts = (manifest.actions as { repo: string }[]).filter((a) => a.repo === "actions/checkout");
  assertEquals(checkouts.length, 2);
});
