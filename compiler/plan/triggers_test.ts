import { assert, assertEquals } from "../test_assert.ts";
import { writeYaml } from "../yaml/writer.ts";
import { agentConcurrency, concurrencyFor, processTriggers } from "./triggers.ts";
import { toY } from "./workflow_values.ts";
import { readOn } from "../source/on_section.ts";

const on = (raw: unknown) =>
  processTriggers(readOn(raw), "acme/widgets/.github/workflows/w.md", "w.md", () => [1, 1], []);

Deno.test("the workflow concurrency group is keyed by the triggering entity, PR runs cancel", () => {
  const plain = concurrencyFor(undefined, on({ workflow_dispatch: null }), toY);
  assertEquals((plain.group as { value: string }).value, "gh-aw-${{ github.workflow }}");
  const pr = concurrencyFor(undefined, on({ pull_request: { types: ["opened"] } }), toY);
  assertEquals(
    (pr.group as { value: string }).value,
    "gh-aw-${{ github.workflow }}-${{ github.event.pull_request.number || github.ref || github.run_id }}",
  );
  assertEquals(pr["cancel-in-progress"], true);
  const slash = concurrencyFor(undefined, on({ slash_command: { name: "x", strategy: "centralized" } }), toY);
  assertEquals(
    (slash.group as { value: string }).value,
    "gh-aw-${{ github.workflow }}-${{ github.event.issue.number || github.event.pull_request.number || github.run_id }}",
  );
  assertEquals(slash["cancel-in-progress"], undefined);
  // A job-discriminator alone keeps the default group.
  const d = concurrencyFor({ "job-discriminator": "${{ inputs.x }}" }, on({ workflow_dispatch: null }), toY);
  assertEquals((d.group as { value: string }).value, "gh-aw-${{ github.workflow }}");
});

Deno.test("the agent queues per engine only for scheduled-style workflows", () => {
  const sched = agentConcurrency(on({ schedule: "daily" }), "copilot", {
    "job-discriminator": "${{ inputs.f }}",
  });
  assertEquals(
    (sched?.group as { value: string }).value,
    "gh-aw-copilot-${{ github.workflow }}-${{ inputs.f }}",
  );
  assertEquals(sched?.queue, "max");
  assertEquals(agentConcurrency(on({ workflow_dispatch: null }), "copilot", undefined), undefined);
  assertEquals(agentConcurrency(on({ issues: { types: ["opened"] } }), "claude", undefined), undefined);
});

Deno.test("fuzzy schedules add a manual trigger; label commands add item_number", () => {
  assertEquals(Object.keys(on({ schedule: "daily" }).on).sort(), ["schedule", "workflow_dispatch"]);
  const lc = on({ label_command: { name: "fix", strategy: "decentralized" } });
  const inputs = (lc.on.workflow_dispatch as Record<string, Record<string, unknown>>).inputs;
  assertEquals(Object.keys(inputs), ["aw_context", "item_number"]);
});

Deno.test("the on: text carries gh-aw's workflow_run note and lists aw_context first", () => {
  const wr = on({ workflow_run: { workflows: ["Dev"], types: ["completed"] } });
  const text = writeYaml(wr.on, 1, { indentSequences: false }).join("\n");
  assert(text.includes("# zizmor: ignore[dangerous-triggers]"), text);
  const wd = on({ workflow_dispatch: { inputs: { audit_date: { required: true } } } });
  const inputs = (wd.on.workflow_dispatch as Record<string, Record<string, unknown>>).inputs;
  assertEquals(Object.keys(inputs), ["aw_context", "audit_date"]);
});
