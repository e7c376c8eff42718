/** Workflow steps that call GitHub while the DIFC proxy filters it get the proxy's endpoints, as gh-aw writes them. */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const WORKFLOW = (github: string) =>
  `---
on: workflow_dispatch
tools:
  cli-proxy: true
  github:
${github}
steps:
  - name: Fetch issues
    env:
      GH_TOKEN: \${{ secrets.GITHUB_TOKEN }}
    run: |
      mkdir -p /tmp/data
      
      gh issue list --json number > /tmp/data/issues.json
  - name: Upload data
    uses: actions/upload-artifact@v7.0.1
    with:
      name: data
      path: /tmp/data
---
Summarise /tmp/data/issues.json.
`;

type Step = Record<string, unknown> & { name?: string };

Deno.test("with a guard policy and the CLI proxy, each workflow step reaches GitHub through the DIFC proxy", async () => {
  const { lock } = await compileOne(WORKFLOW("    mode: gh-proxy\n    min-integrity: approved"));
  const steps = parse(lock).jobs.agent.steps as Step[];
  const start = steps.findIndex((s) => s.name === "Start DIFC Proxy");
  const fetchAt = steps.findIndex((s) => s.name === "Fetch issues");
  const upload = steps.find((s) => s.name === "Upload data")!;
  assert(start >= 0 && fetchAt > start, "the proxy starts before the workflow's steps");
  const fetch = steps[fetchAt];
  assertEquals(Object.keys(fetch), ["name", "run", "env"], "keys in gh-aw's PriorityStepFields order");
  assertEquals(fetch.env, {
    GH_HOST: "${{ env.GH_HOST || 'github.com' }}",
    GH_REPO: "${{ github.repository }}",
    GH_TOKEN: "${{ secrets.GITHUB_TOKEN }}",
    GITHUB_API_URL: "https://localhost:18443/api/v3",
    GITHUB_GRAPHQL_URL: "https://localhost:18443/api/graphql",
    NODE_EXTRA_CA_CERTS: "/tmp/gh-aw/proxy-logs/proxy-tls/ca.crt",
  });
  assertEquals(fetch.run, "mkdir -p /tmp/data\n\ngh issue list --json number > /tmp/data/issues.json\n");
  assert(
    lock.includes("          mkdir -p /tmp/data\n\n          gh issue list"),
    "blank script lines stay empty",
  );
  assertEquals(Object.keys(upload), ["name", "uses", "env", "with"]);
  // gh-aw re-marshals the rewritten steps without the empty line it leaves after the steps as written.
  assert(lock.includes("          path: /tmp/data\n      - name: "), "no empty line after the last step");
  assertEquals((upload.env as Record<string, string>).GITHUB_API_URL, "https://localhost:18443/api/v3");
});

Deno.test("without a guard policy the workflow's steps are left as written", async () => {
  const { lock } = await compileOne(WORKFLOW("    mode: gh-proxy"));
  const steps = parse(lock).jobs.agent.steps as Step[];
  assert(!steps.some((s) => s.name === "Start DIFC Proxy"));
  const fetch = steps.find((s) => s.name === "Fetch issues")!;
  assertEquals(fetch.env, { GH_TOKEN: "${{ secrets.GITHUB_TOKEN }}" });
});

Deno.test("steps rewritten for the DIFC proxy keep numbers as strings and no empty line after them", async () => {
  const { lock } = await compileOne(
    WORKFLOW("    mode: gh-proxy\n    min-integrity: approved").replace(
      "      GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n",
      "      GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n      DAYS: 365\n",
    ),
  );
  assert(lock.includes('          DAYS: "365"\n'), "an env number is merged as a string");
  // Without the proxy gh-aw leaves an empty line after the user steps; the rewritten block has none.
  assert(
    lock.includes("          path: /tmp/data\n      - name: "),
    "no empty line after the last user step",
  );
});

Deno.test("through the DIFC proxy, steps keep gh-aw's key priority and no blank line follows them", async () => {
  const md = WORKFLOW("    mode: gh-proxy\n    min-integrity: approved").replace(
    "  - name: Upload data\n",
    "  - if: always()\n    id: up\n    name: Upload data\n",
  );
  const { lock } = await compileOne(md);
  const upload = (parse(lock).jobs.agent.steps as Step[]).find((s) => s.name === "Upload data")!;
  assertEquals(Object.keys(upload), ["name", "id", "if", "uses", "env", "with"]);
  assert(
    /path: \/tmp\/data\n {6}- name: /.test(lock),
    "the re-written block ends without the empty line gh-aw leaves after unrewritten user steps",
  );
});
