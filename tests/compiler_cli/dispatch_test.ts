import assert from "node:assert/strict";
import { awc, tempRepo } from "./support/harness.ts";
import { startGitHubServer } from "./support/github_server.ts";

const DEPLOY = `---
on:
  repository_dispatch:
    types: [deploy-docs, rebuild]
---
Deploy \${{ github.event.client_payload.version }}.
`;

Deno.test("dispatch posts the event type and payload and names the workflows declaring it", async () => {
  await using github = startGitHubServer({ token: "tok", repos: { "octo/demo": {} } });
  await using repo = await tempRepo({ ".github/workflows/deploy.md": DEPLOY });
  const env = { GH_TOKEN: "tok", GITHUB_API_URL: github.url };
  const result = await awc(["dispatch", "deploy-docs", "--payload", '{"version":"1.2"}'], {
    cwd: repo.path,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(github.state.dispatches, [{
    repo: "octo/demo",
    body: { event_type: "deploy-docs", client_payload: { version: "1.2" } },
  }]);
  assert.match(result.stderr, /workflows declaring "deploy-docs": \.github\/workflows\/deploy\.md/);
  assert.equal(result.stdout, 'dispatched "deploy-docs" to octo/demo\n');
});

Deno.test("dispatch explains a 404 and a 403 in terms of the token's scope", async () => {
  await using github = startGitHubServer({ repos: { "octo/demo": { dispatchStatus: 403 } } });
  await using repo = await tempRepo({ ".github/workflows/deploy.md": DEPLOY });
  const env = { GH_TOKEN: "tok", GITHUB_API_URL: github.url };
  const missing = await awc(["dispatch", "rebuild", "--repo", "octo/private"], { cwd: repo.path, env });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /octo\/private was not found or the token cannot write to it/);
  assert.match(missing.stderr, /classic token needs the `repo` scope.*`contents: write` on octo\/private/);
  const forbidden = await awc(["dispatch", "rebuild"], { cwd: repo.path, env });
  assert.equal(forbidden.code, 1);
  assert.match(forbidden.stderr, /may not dispatch events to octo\/demo \(403\)/);
});

Deno.test("dispatch warns when no workflow declares the type and needs a token", async () => {
  await using repo = await tempRepo({ ".github/workflows/deploy.md": DEPLOY });
  const result = await awc(["dispatch", "unknown-type"], { cwd: repo.path });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no workflow .* declares repository_dispatch type "unknown-type"/);
  assert.match(result.stderr, /dispatching needs a token: set GITHUB_TOKEN or GH_TOKEN/);
});

Deno.test("dispatch rejects a payload that is not a JSON object as a usage error", async () => {
  await using repo = await tempRepo({});
  for (const payload of ["[1]", "{bad"]) {
    const result = await awc(["dispatch", "x", "--payload", payload], { cwd: repo.path });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--payload (must be a JSON object|is not valid JSON)/);
  }
  assert.equal((await awc(["dispatch"], { cwd: repo.path })).code, 2);
});
