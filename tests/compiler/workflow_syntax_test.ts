/**
 * Shape validation of what the lock copies as GitHub Actions syntax (`on:` filters and inputs, `jobs:`,
 * `steps:`, `runs-on`, `services`, `container`): located, plain-words diagnostics with their own codes, and
 * nothing valid refused (both corpora compile unchanged: `deno task compiler:identical`).
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { diagnosticsOf } from "./helpers.ts";

const BODY = "\n---\n# Task\nDo it.\n";

/** The diagnostics of a workflow whose frontmatter is `lines` (after the opening `---`). */
async function problems(lines: string) {
  return (await diagnosticsOf(`---\n${lines}${BODY}`)).filter((d) => d.severity === "error");
}

/** Asserts exactly one error, of `code`, at `line` (file line, the `---` is line 1), naming `words`. */
async function refused(lines: string, code: string, line: number, words: RegExp) {
  const found = await problems(lines);
  assertEquals(found.map((d) => d.code), [code], JSON.stringify(found));
  assertEquals(found[0].line, line);
  assert(words.test(found[0].message), found[0].message);
  assert(found[0].hint && found[0].hint.length > 0, "every refusal has a hint");
  assert(!/invalid input/i.test(found[0].message));
}

Deno.test("an unknown filter of an event is refused at its line, naming the event's filters", async () => {
  await refused(
    "on:\n  push:\n    branch: [main]",
    "invalid-trigger",
    4,
    /`branch` is not a filter of the `push` event/,
  );
  await refused(
    "on:\n  issues:\n    types: 5",
    "invalid-trigger",
    4,
    /must be text or a list of texts, not the number 5/,
  );
  await refused(
    "on:\n  fork:\n    types: [created]",
    "invalid-trigger",
    4,
    /not a filter of the `fork` event/,
  );
});

Deno.test("branches and branches-ignore together are refused, as GitHub refuses them", async () => {
  await refused(
    "on:\n  push:\n    branches: [main]\n    branches-ignore: [dev]",
    "invalid-trigger",
    5,
    /cannot filter with both `branches` and `branches-ignore`/,
  );
});

Deno.test("dispatch and call inputs are checked field by field and by type", async () => {
  await refused(
    "on:\n  workflow_dispatch:\n    inputs:\n      topic:\n        kind: string",
    "invalid-trigger",
    6,
    /`kind` is not a field of a `workflow_dispatch` input/,
  );
  await refused(
    "on:\n  workflow_call:\n    inputs:\n      n:\n        type: choice",
    "invalid-trigger",
    6,
    /input type "choice" is not a `workflow_call` input type/,
  );
});

Deno.test("a step needs exactly one of run and uses, and only step keys", async () => {
  await refused("on: push\nsteps:\n  - name: nothing", "invalid-step", 4, /needs `run:` .* or `uses:`/);
  await refused(
    "on: push\nsteps:\n  - run: make\n    uses: actions/setup-go@v6",
    "invalid-step",
    4,
    /cannot have both `run:` and `uses:`/,
  );
  await refused(
    "on: push\nsteps:\n  - run: make\n    timeout: 5",
    "invalid-step",
    5,
    /`timeout` is not a step key/,
  );
});

Deno.test("a custom job is checked against GitHub's job keys", async () => {
  const misspelt = await problems(
    "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    step:\n      - run: make lint",
  );
  assertEquals(misspelt.map((d) => [d.code, d.line]), [["invalid-job", 6], ["invalid-job", 4]]);
  assert(/`step` is not a job key/.test(misspelt[0].message));
  assert(/job `lint` needs `steps:`/.test(misspelt[1].message));
  const both = await problems(
    "on: push\njobs:\n  call:\n    uses: o/r/.github/workflows/x.yml@v1\n    steps:\n      - run: echo",
  );
  assertEquals(both.map((d) => [d.code, d.line]), [["invalid-job", 6]]);
  assert(/calls a reusable workflow .* cannot also have `steps`/.test(both[0].message));
  await refused(
    "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    needs: {a: 1}\n    steps:\n      - run: make",
    "invalid-job",
    6,
    /`needs` of job `t` must be a job name or a list/,
  );
  // Steps of a custom job are steps too.
  await refused(
    "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - name: empty",
    "invalid-step",
    7,
    /needs `run:`/,
  );
});

Deno.test("runs-on, services and container must have GitHub's shapes", async () => {
  await refused("on: push\nruns-on: 5", "invalid-runs-on", 3, /not the number 5/);
  await refused("on: push\nruns-on:\n  pool: big", "invalid-runs-on", 4, /`runs-on.pool`/);
  await refused(
    "on: push\nservices:\n  db:\n    ports: [5432]",
    "invalid-service",
    4,
    /service `db` needs an `image`/,
  );
  await refused(
    "on: push\nservices:\n  db:\n    image: postgres\n    port: 1",
    "invalid-service",
    6,
    /`port` is not a key/,
  );
  const container = await problems("on: push\ncontainer:\n  img: node");
  assertEquals(container.map((d) => [d.code, d.line]), [["invalid-container", 3], ["invalid-container", 4]]);
  assert(/`container` needs an `image`/.test(container[0].message));
});

Deno.test("valid GitHub shapes and gh-aw's additions are accepted", async () => {
  const ok = await problems(
    [
      "on:",
      "  push:\n    branches: main\n    paths-ignore: [docs/**]",
      "  pull_request:\n    types: [labeled]\n    names: [deploy]\n    forks: ['*']\n    draft: false",
      "  issues:\n    types: [opened]\n    lock-for-agent: true",
      "  workflow_dispatch:\n    inputs:\n      level:\n        type: choice\n        options: [a, b]\n        required: true",
      "  deployment_status:\n    state: [failure]",
      "runs-on:\n  group: big\n  labels: [linux]",
      "container: node:22",
      "services:\n  db:\n    image: postgres:16\n    ports: [5432]\n    options: --health-cmd pg_isready",
      "steps:\n  - uses: actions/setup-node@v6\n    with:\n      node-version: '22'\n  - run: npm ci\n    shell: bash",
      "jobs:",
      "  build:\n    runs-on: [self-hosted, linux]\n    needs: [other]\n    steps:\n      - run: make",
      "  other:\n    uses: o/r/.github/workflows/x.yml@v1\n    with:\n      a: 1\n    secrets: inherit",
      "  pre-activation:\n    outputs:\n      ok: yes",
      "  conclusion:\n    pre-steps:\n      - run: echo",
    ].join("\n"),
  );
  assertEquals(ok, []);
});
