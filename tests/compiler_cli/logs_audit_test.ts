import assert from "node:assert/strict";
import { awc, tempRepo } from "./support/harness.ts";
import { startGitHubServer } from "./support/github_server.ts";
import { makeZip } from "./support/zip_writer.ts";

const TRIAGE = `---
name: Issue Triage
on: issues
engine:
  id: claude
  model: claude-sonnet
gateway:
  providers:
    anthropic:
      models:
        claude-sonnet:
          cost:
            input: "3e-6"
            output: "1.5e-5"
            cache_read: "3e-7"
---
Triage.
`;

function run(id: number, path: string, conclusion: string | null, seconds: number) {
  const start = new Date(Date.UTC(2026, 10, 20, 10, 0, 0));
  return {
    id,
    name: path.includes("triage") ? "Issue Triage" : "CI",
    path,
    event: "issues",
    status: conclusion ? "completed" : "in_progress",
    conclusion,
    run_started_at: start.toISOString(),
    created_at: start.toISOString(),
    updated_at: new Date(start.getTime() + seconds * 1000).toISOString(),
    html_url: `https://github.com/octo/demo/actions/runs/${id}`,
  };
}

function server() {
  const agent = makeZip({
    "aw_info.json": JSON.stringify({ engine_id: "claude", model: "claude-sonnet" }),
    "agent_output.json": JSON.stringify({
      items: [{ type: "create_issue" }, { type: "add-comment" }, { type: "add_comment" }],
      errors: ["label 'urgent' not allowed"],
    }),
    "token_usage.jsonl": [
      JSON.stringify({ model: "claude-sonnet", usage: { input_tokens: 1000, output_tokens: 200 } }),
      JSON.stringify({
        model: "claude-sonnet",
        usage: { input_tokens: 500, output_tokens: 100, cache_read_input_tokens: 1000 },
      }),
    ].join("\n"),
    "mcp-logs/rpc-messages.jsonl": [
      JSON.stringify({ message: { method: "tools/call", params: { name: "issue_read" } } }),
      JSON.stringify({ message: { method: "tools/call", params: { name: "issue_read" } } }),
      JSON.stringify({ message: { method: "tools/list" } }),
    ].join("\n"),
  });
  const firewall = makeZip({
    "squid/access.log": [
      "1732000000.000 0 172.30.0.20 TCP_DENIED/403 0 CONNECT evil.example.com:443 - HIER_NONE/- -",
      "1732000001.000 0 172.30.0.20 TCP_TUNNEL/200 0 CONNECT api.github.com:443 - HIER_DIRECT/1.2.3.4 -",
      "1732000002.000 0 172.30.0.20 TCP_DENIED/403 0 CONNECT evil.example.com:443 - HIER_NONE/- -",
    ].join("\n"),
  });
  const runs = [
    run(103, ".github/workflows/ci.yml", "success", 30),
    run(102, ".github/workflows/triage.lock.yml", "success", 95),
    run(101, ".github/workflows/triage.lock.yml", "failure", 20),
  ];
  return startGitHubServer({
    token: "tok",
    repos: {
      "octo/demo": {
        runs,
        logs: {
          102: makeZip({ "agent/1_Run agent.txt": "2026-11-20T10:00:01Z starting\n" }),
          101: makeZip({
            "agent/3_Execute.txt": "2026-11-20T10:00:05Z ##[error]Process completed with exit code 1.\n",
          }),
        },
        artifacts: {
          102: [
            { name: "agent", zip: agent },
            { name: "firewall-logs", zip: firewall },
            {
              name: "old",
              zip: agent,
              expired: true,
            },
            { name: "evil", zip: makeZip({ "../../escape.txt": "x" }) },
            {
              name: "..",
              zip: makeZip({ "dotdot.txt": "x" }),
            },
          ],
        },
        jobs: {
          102: [
            {
              name: "activation",
              conclusion: "success",
              started_at: "2026-11-20T10:00:00Z",
              completed_at: "2026-11-20T10:00:12Z",
            },
            {
              name: "agent",
              conclusion: "failure",
              started_at: "2026-11-20T10:00:12Z",
              completed_at: "2026-11-20T10:01:25Z",
              steps: [{ name: "Execute Claude Code CLI", conclusion: "failure" }],
            },
          ],
        },
      },
    },
  });
}

Deno.test("logs downloads agentic runs into logs/run-<id>/ and prints status, duration, tokens, cost, safe outputs", async () => {
  await using github = server();
  await using repo = await tempRepo({ ".github/workflows/triage.md": TRIAGE });
  const env = { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["logs"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n");
  assert.match(lines[0], /^RUN\s+WORKFLOW\s+STATUS\s+DURATION\s+TOKENS\s+COST\s+SAFE OUTPUTS$/);
  // 1500*3e-6 + 300*1.5e-5 + 1000*3e-7 = 0.0045 + 0.0045 + 0.0003
  assert.match(
    lines[1],
    /^102\s+triage\s+success\s+1m35s\s+2800\s+\$0\.0093\s+create_issue×1, add_comment×2$/,
  );
  assert.match(lines[2], /^101\s+triage\s+failure\s+20s\s+-\s+-\s+-$/);
  assert.equal(lines.length, 3, "the non-agentic ci.yml run is left out");
  const dir = `${repo.path}/logs/run-102`;
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/run.json`)).id, 102);
  assert.ok(await Deno.stat(`${dir}/logs/agent/1_Run agent.txt`));
  assert.ok(await Deno.stat(`${dir}/agent/agent_output.json`));
  assert.match(result.stderr, /artifact old expired/);
  assert.match(result.stderr, /artifact evil: unsafe path in zip archive: \.\.\/\.\.\/escape\.txt/);
  await assert.rejects(Deno.stat(`${repo.path}/logs/escape.txt`), Deno.errors.NotFound);
  assert.match(result.stderr, /artifact name "\.\." skipped \(unsafe\)/);
  await assert.rejects(
    Deno.stat(`${repo.path}/logs/dotdot.txt`),
    Deno.errors.NotFound,
    "no artifact escapes",
  );
});

Deno.test("logs filters by workflow name, paginates, caches completed runs and prints JSON", async () => {
  await using github = server();
  await using repo = await tempRepo({ ".github/workflows/triage.md": TRIAGE });
  const env = { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["logs", "Issue Triage", "-c", "2", "--json", "-o", "out"], {
    cwd: repo.path,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report.runs.map((r: { id: number }) => r.id), [102, 101]);
  assert.ok(
    github.state.requests.includes("GET /repos/octo/demo/actions/workflows/triage.lock.yml/runs?per_page=2"),
  );
  const downloads = github.state.requests.filter((r) => r.endsWith("/logs")).length;
  await awc(["logs", "triage", "-o", "out"], { cwd: repo.path, env });
  assert.equal(
    github.state.requests.filter((r) => r.endsWith("/logs")).length,
    downloads,
    "cached runs not fetched",
  );
  const unknown = await awc(["logs", "nope"], { cwd: repo.path, env });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no agentic workflow named "nope" in \.github\/workflows\n/);
  const typo = await awc(["logs", "traige"], { cwd: repo.path, env });
  assert.match(
    typo.stderr,
    /no agentic workflow named "traige" in \.github\/workflows; did you mean "triage"\?/,
  );
});

Deno.test("logs outside a checkout takes the workflow name as given", async () => {
  await using github = server();
  await using repo = await tempRepo({});
  const env = { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["logs", "triage", "--repo", "octo/demo", "--json"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout).runs.map((r: { id: number }) => r.id), [102, 101]);
});

Deno.test("logs explains authentication failures and missing repositories", async () => {
  await using github = server();
  await using repo = await tempRepo({});
  const noToken = await awc(["logs"], { cwd: repo.path, env: { GITHUB_API_URL: github.url } });
  assert.equal(noToken.code, 1);
  assert.match(noToken.stderr, /authentication required \(401\): set GITHUB_TOKEN or GH_TOKEN/);
  const missing = await awc(["logs", "--repo", "octo/gone"], {
    cwd: repo.path,
    env: { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url },
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /not found \(404\): the resource does not exist or the token cannot see it/);
});

Deno.test("audit reports jobs, firewall blocks, MCP tool calls, safe outputs and errors as text", async () => {
  await using github = server();
  await using repo = await tempRepo({ ".github/workflows/triage.md": TRIAGE });
  const env = { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["audit", "https://github.com/octo/demo/actions/runs/102/job/7"], {
    cwd: repo.path,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const text = result.stdout;
  assert.match(text, /Run 102 of Issue Triage \(octo\/demo\)/);
  assert.match(text, /engine: claude {3}model: claude-sonnet {3}tokens: 2800 {3}cost: \$0\.0093/);
  assert.match(text, /Jobs:\n {2}activation\s+success\s+12s\n {2}agent\s+failure\s+1m13s/);
  assert.match(text, /Firewall blocks:\n {2}evil\.example\.com ×2\n/);
  assert.match(text, /MCP tool calls:\n {2}issue_read ×2\n/);
  assert.match(text, /Safe outputs:\n {2}add_comment ×2\n {2}create_issue ×1/);
  assert.match(
    text,
    /Errors:\n {2}agent: step "Execute Claude Code CLI" failed\n {2}label 'urgent' not allowed/,
  );
});

Deno.test("audit --json gives the same facts and a bare id uses the origin repository", async () => {
  await using github = server();
  await using repo = await tempRepo({ ".github/workflows/triage.md": TRIAGE });
  const env = { GITHUB_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["audit", "101", "--json"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.repository, "octo/demo");
  assert.equal(report.run.status, "failure");
  assert.deepEqual(report.errors, ["Process completed with exit code 1."]);
  const bad = await awc(["audit", "not-a-run"], { cwd: repo.path, env });
  assert.equal(bad.code, 2);
  const gone = await awc(["audit", "999"], { cwd: repo.path, env });
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /404/);
});
