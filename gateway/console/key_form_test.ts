import assert from "node:assert/strict";
import { parseKeyForm } from "./key_form.ts";

Deno.test("a create form without a name or with a bad RPM reports each problem on its field", () => {
  const result = parseKeyForm({ name: "", rpm: "ten", "budget-usd": "5" }, false);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.errors.name, "Enter a name for the key.");
  assert.match(result.errors.rpm, /Expected a positive integer, got "ten"/);
  assert.match(result.errors["budget-usd"], /Needs budget-period/);
});

Deno.test("a create form with limits parses into key settings", () => {
  const result = parseKeyForm({ name: "ci", rpm: "3", "budget-usd": "2.5", "budget-period": "day" }, false);
  assert.deepEqual(result, {
    ok: true,
    name: "ci",
    settings: { rpm: 3, budgetUsd: 2.5, budgetPeriod: "day" },
  });
});

Deno.test("an update form clears every limit left empty", () => {
  const result = parseKeyForm({ rpm: "5" }, true);
  assert.equal(result.ok, true);
  if (!result.ok) return;
  assert.equal(result.settings.rpm, 5);
  assert.equal(result.settings.tpm, null);
  assert.equal(result.settings.budgetUsd, null);
  assert.equal(result.settings.models, null);
});
