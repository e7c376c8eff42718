import { assert, assertEquals, assertIncludes } from "../../test_assert.ts";
import { writeYaml, type YValue } from "../../yaml/writer.ts";
import { customJob, jobsBeforeActivation, orderStepKeys, preActivationExtras, safeJob } from "./custom.ts";
import { toY } from "../workflow_values.ts";

const JOBS = {
  precompute: { "runs-on": "ubuntu-latest", steps: [{ run: "echo" }] },
  gated: { needs: ["pre_activation"], steps: [] },
  after: { needs: "activation", steps: [] },
  plain: { steps: [] },
  "pre-activation": { outputs: { x: "${{ steps.a.outputs.x }}" } },
};

Deno.test("jobs the prompt reads without needs, or that need pre_activation, run before activation", () => {
  const body = "Use ${{ needs.precompute.outputs.a }} and ${{ needs.after.outputs.b }}";
  assertEquals(jobsBeforeActivation(JOBS, body), ["gated", "precompute"]);
  assertEquals(jobsBeforeActivation(JOBS, "nothing"), ["gated"]);
});

Deno.test("custom jobs wait for activation unless they run before it, and start with the GH_HOST step", () => {
  const late = customJob({ raw: JOBS.plain, steps: [], beforeActivation: false, toY });
  assertEquals(late.needs, ["activation"]);
  assertEquals(late.steps.map((s) => s.id), ["ghes-host-config"]);
  const early = customJob({ raw: JOBS.precompute, steps: [{ run: "echo" }], beforeActivation: true, toY });
  assertEquals(early.needs, undefined);
  assertEquals(early.steps.length, 2);
  const explicit = customJob({
    raw: { needs: ["b", "a"], if: "${{ x == 1 }}" },
    steps: [],
    beforeActivation: false,
    toY,
  });
  assertEquals(explicit.needs, ["a", "b"]);
  assertEquals(explicit.if, "x == 1");
  assertEquals(explicit.steps, undefined);
});

Deno.test("user step keys follow gh-aw's priority order, then the alphabet", () => {
  const s = orderStepKeys({ shell: "bash", run: "x", "working-directory": "d", name: "n", id: "i" });
  assertEquals(Object.keys(s), ["name", "id", "run", "shell", "working-directory"]);
});

Deno.test("jobs.pre-activation contributes outputs to pre_activation", () => {
  assertEquals(preActivationExtras(JOBS).outputs, { x: "${{ steps.a.outputs.x }}" });
  assertEquals(preActivationExtras({}).steps, []);
});

Deno.test("safe-output jobs run when the agent emitted their type and get the agent output path", () => {
  const job = safeJob({
    raw: { name: "Shown", permissions: { contents: "read" }, if: "${{ inputs.go }}" },
    steps: [{ run: "echo hi", name: "Say", env: { Z: "1" } }],
    name: "send_it",
    threatDetection: true,
    download: "actions/download-artifact@abc # v8",
    toY,
  });
  assertEquals(job.name, "Shown");
  assertEquals(job.needs, ["agent", "detection"]);
  assertEquals(
    job.if,
    "(!cancelled()) && needs.agent.result != 'skipped' && contains(needs.agent.outputs.output_types, 'send_it') && (inputs.go)",
  );
  assertEquals(job.steps[0].name, "Download agent output artifact");
  assertEquals(Object.keys(job.steps[1]), ["name", "run", "env"]);
  assertEquals(Object.keys(job.steps[1].env ?? {}), ["GH_AW_AGENT_OUTPUT", "Z"]);
});

Deno.test("custom jobs render sorted permissions, a blank line after them and bare blank lines in scripts", () => {
  const job = customJob({
    raw: { permissions: { issues: "write", contents: "read" }, steps: [] },
    steps: [{ name: "S", run: toY("a\n\nb\n"), with: { z: "1", a: "2" } }],
    beforeActivation: false,
    toY,
  });
  const text = writeYaml({ j: job as unknown as YValue }, 1).join("\n");
  // The blank line follows the permissions (here the last key).
  assert(text.endsWith("      contents: read\n      issues: write\n"), text);
  assertIncludes(text, "          a\n\n          b");
  assert(text.indexOf('a: "2"') < text.indexOf('z: "1"'), "with keys sorted");
});
