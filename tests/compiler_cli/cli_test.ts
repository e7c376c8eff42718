import assert from "node:assert/strict";
import { COMMANDS } from "../../compiler/cli/mod.ts";
import { awc, tempRepo } from "./support/harness.ts";
import { startGitHubServer } from "./support/github_server.ts";

const MAIN = new URL("../../compiler/main.ts", import.meta.url).pathname;

function denoDir(): Record<string, string> {
  const dir = Deno.env.get("DENO_DIR");
  return dir ? { DENO_DIR: dir } : {};
}

async function deno(args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    cwd,
    // A clean environment: a CI runner's GITHUB_TOKEN or GITHUB_REPOSITORY must not leak into the test.
    clearEnv: true,
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      ...denoDir(),
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: result.code,
    stdout: new TextDecoder().decode(result.stdout),
    stderr: new TextDecoder().decode(result.stderr),
  };
}

Deno.test("awc --help lists every command and exits 0; no command is a usage error", async () => {
  const help = await awc(["--help"], { cwd: "." });
  assert.equal(help.code, 0);
  for (const command of COMMANDS) assert.match(help.stdout, new RegExp(`\\n  ${command.name} `));
  const bare = await awc([], { cwd: "." });
  assert.equal(bare.code, 2);
});

Deno.test("every command answers --help with its usage and options", async () => {
  for (const command of COMMANDS) {
    const result = await awc([command.name, "--help"], { cwd: "." });
    assert.equal(result.code, 0, command.name);
    assert.match(result.stdout, new RegExp(`^Usage: awc ${command.name}`));
    assert.match(result.stdout, /-h, --help/);
    for (const option of Object.keys(command.options)) assert.match(result.stdout, new RegExp(`--${option}`));
  }
  assert.equal(
    (await awc(["help", "logs"], { cwd: "." })).stdout.split("\n")[0],
    "Usage: awc logs [workflow] [options]",
  );
});

Deno.test("unknown commands, unknown options and extra arguments exit 2 with a pointer to help", async () => {
  const unknown = await awc(["compiel"], { cwd: "." });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "compiel"; did you mean "compile"\?/);
  const option = await awc(["init", "--force"], { cwd: "." });
  assert.equal(option.code, 2);
  assert.match(option.stderr, /Unknown option '--force'\nRun `awc init --help` for usage\./);
  const extra = await awc(["audit", "1", "2"], { cwd: "." });
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /unexpected argument "2"/);
  assert.equal((await awc(["logs", "-c", "zero"], { cwd: "." })).code, 2);
});

Deno.test("the CLI runs through deno run: help, version, usage errors and init", async () => {
  await using repo = await tempRepo({});
  const help = await deno(["--help"], repo.path);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: awc <command>/);
  assert.match((await deno(["version"], repo.path)).stdout, /^awc \d+\.\d+\.\d+/);
  const usage = await deno(["compile", "--action-mode", "fast"], repo.path);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--action-mode must be one of release, dev/);
  const init = await deno(["init", "--engine", "codex"], repo.path);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, /wrote \.gitattributes/);
  assert.equal(init.stderr.includes("\r"), false, "no progress output when stderr is not a terminal");
});

Deno.test("the CLI runs through deno run against a GitHub server: dispatch and update-actions --dry-run", async () => {
  await using github = startGitHubServer({
    token: "tok",
    repos: {
      "octo/demo": {},
      "actions/checkout": {
        releases: [{ tag_name: "v6.0.2" }],
        refs: { "v6.0.2": { sha: "b".repeat(40), type: "commit" } },
      },
    },
  });
  await using repo = await tempRepo({
    ".github/aw/actions-lock.json": JSON.stringify({
      entries: {
        "actions/checkout@v6.0.1": { repo: "actions/checkout", version: "v6.0.1", sha: "a".repeat(40) },
      },
    }),
  });
  const env = { GH_TOKEN: "tok", GITHUB_API_URL: github.url };
  const dispatched = await deno(["dispatch", "go", "--payload", '{"n":1}'], repo.path, env);
  assert.equal(dispatched.code, 0, dispatched.stderr);
  assert.deepEqual(github.state.dispatches[0].body, { event_type: "go", client_payload: { n: 1 } });
  const dry = await deno(["update-actions", "--dry-run"], repo.path, env);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /\+ actions\/checkout@v6\.0\.2 b{40}/);
});
