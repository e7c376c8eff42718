import assert from "node:assert/strict";
import { assetName } from "../../compiler/commands/upgrade.ts";
import { awc, tempRepo } from "./support/harness.ts";
import { createCompileDouble } from "./support/compile_double.ts";
import { startGitHubServer } from "./support/github_server.ts";

const sha = (c: string) => c.repeat(40);

Deno.test("upgrade replaces a standalone binary with the newest release asset and hands over to it", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using github = startGitHubServer({
    repos: {
      "sy/awc": {
        releases: [{ tag_name: "v0.1.5" }, { tag_name: "v0.3.0-rc.1", prerelease: true }, {
          tag_name: "v0.2.0",
        }],
      },
    },
  });
  github.state.assets[`v0.2.0/${assetName()}`] = new TextEncoder().encode('#!/bin/sh\necho "new awc $*"\n');
  await using repo = await tempRepo({});
  const bin = `${repo.path}/bin/awc`;
  await Deno.mkdir(`${repo.path}/bin`);
  await Deno.writeTextFile(bin, "old binary", { mode: 0o755 });
  const env = {
    GITHUB_API_URL: github.url,
    AWC_RELEASES_REPO: "sy/awc",
    AWC_RELEASES_URL: `${github.url}/download`,
  };
  const result = await awc(["upgrade", "--no-compile"], {
    cwd: repo.path,
    env,
    execPath: bin,
    version: "0.1.0",
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /upgraded awc 0\.1\.0 → v0\.2\.0/);
  assert.equal(result.stdout, "new awc upgrade --no-self --no-compile\n", "the new binary runs the rest");
  assert.match(await Deno.readTextFile(bin), /new awc/);
  assert.equal((await Deno.stat(bin)).mode! & 0o111, 0o111);
  await assert.rejects(Deno.stat(`${bin}.new`), Deno.errors.NotFound);
});

Deno.test("upgrade from source reports the newer version from tags, then updates actions and recompiles", async () => {
  await using github = startGitHubServer({
    repos: {
      "sy/awc": { releases: [], tags: [{ name: "v0.4.0", sha: sha("1") }] },
      "actions/checkout": {
        releases: [{ tag_name: "v6.0.2" }],
        refs: { "v6.0.2": { sha: sha("b"), type: "commit" } },
      },
    },
  });
  await using repo = await tempRepo({
    ".github/aw/actions-lock.json": JSON.stringify({
      entries: { "actions/checkout@v6.0.1": { repo: "actions/checkout", version: "v6.0.1", sha: sha("a") } },
    }),
    ".github/workflows/triage.md": "---\non: issues\n---\nBody\n",
  });
  const double = createCompileDouble();
  const env = { GITHUB_API_URL: github.url, AWC_RELEASES_REPO: "sy/awc" };
  const result = await awc(["upgrade"], { cwd: repo.path, env, compile: double.compile, version: "0.1.0" });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /awc v0\.4\.0 is available \(running 0\.1\.0 from source\)/);
  assert.match(result.stdout, /\+ actions\/checkout@v6\.0\.2 b{40}/);
  assert.equal(double.calls.length, 1);
  assert.ok(await Deno.stat(`${repo.path}/.github/workflows/triage.lock.yml`));
});

Deno.test("upgrade says when awc is current and fails clearly when the asset is missing", async () => {
  await using github = startGitHubServer({ repos: { "sy/awc": { releases: [{ tag_name: "v0.1.0" }] } } });
  await using repo = await tempRepo({});
  const env = {
    GITHUB_API_URL: github.url,
    AWC_RELEASES_REPO: "sy/awc",
    AWC_RELEASES_URL: `${github.url}/download`,
  };
  const current = await awc(["upgrade", "--no-actions", "--no-compile"], {
    cwd: repo.path,
    env,
    version: "0.1.0",
  });
  assert.equal(current.code, 0);
  assert.match(current.stderr, /awc 0\.1\.0 is up to date \(sy\/awc, from releases\)/);
  github.state.repos["sy/awc"].releases = [{ tag_name: "v0.9.0" }];
  const missing = await awc(["upgrade"], {
    cwd: repo.path,
    env,
    version: "0.1.0",
    execPath: `${repo.path}/awc`,
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot download .*\/download\/v0\.9\.0\/gh-awc-.*: HTTP 404/);
});

Deno.test("release asset names follow gh's precompiled extension convention", () => {
  assert.equal(assetName("linux", "x86_64"), "gh-awc-linux-amd64");
  assert.equal(assetName("linux", "aarch64"), "gh-awc-linux-arm64");
  assert.equal(assetName("darwin", "aarch64"), "gh-awc-darwin-arm64");
  assert.equal(assetName("windows", "x86_64"), "gh-awc-windows-amd64.exe");
});
