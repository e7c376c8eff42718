import assert from "node:assert/strict";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import {
  applicablePolicy,
  type GrantedPolicy,
  type PoliciesDatabase,
  policiesLoader,
  PolicySnapshot,
  PolicyStore,
} from "./policy_store.ts";

const p = (subject: string): GrantedPolicy => ({ subject, limits: { rpm: subject.length } });

Deno.test("the most specific policy applies: the user's own, a team, an organisation, the default", () => {
  const all = new Map(
    ["user:u1", "group:acme/ml", "group:acme", "group:beta/ops", "default:user"].map((s) => [s, p(s)]),
  );
  assert.equal(applicablePolicy(all, "u1", ["acme", "acme/ml"])?.subject, "user:u1");
  assert.equal(applicablePolicy(all, "u2", ["acme", "acme/ml"])?.subject, "group:acme/ml");
  assert.equal(applicablePolicy(all, "u2", ["ACME"])?.subject, "group:acme");
  assert.equal(
    applicablePolicy(all, "u2", ["beta/ops", "acme/ml"])?.subject,
    "group:acme/ml",
    "equals: first by name",
  );
  assert.equal(applicablePolicy(all, "u2", ["zeta"])?.subject, "default:user");
  all.delete("default:user");
  assert.equal(applicablePolicy(all, "u2", []), undefined, "deny by default");
});

Deno.test("policies are set, replaced, listed, removed, and reach the snapshot", async () => {
  const dir = await Deno.makeTempDir();
  const { client, db } = await openDatabase<PoliciesDatabase>({ url: `file:${dir}/g.db` });
  try {
    await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
    const store = new PolicyStore(db);
    await store.set("user:u1", { rpm: 10, models: ["fast"] });
    await store.set("default:user", { budgetUsd: 5, budgetPeriod: "day" });
    await store.set("user:u1", { tpm: 1000 });
    const listed = await store.list();
    assert.deepEqual(listed.map((l) => [l.subject, l.limits, l.models]), [
      ["default:user", { budgetUsd: 5, budgetPeriod: "day" }, undefined],
      ["user:u1", { tpm: 1000 }, undefined],
    ]);
    const snapshot = new PolicySnapshot(policiesLoader(() => Promise.resolve(db)), 60_000);
    assert.equal(applicablePolicy(await snapshot.current(), "u1", [])?.limits?.tpm, 1000);
    assert.equal(await store.remove("user:u1"), true);
    assert.equal(await store.remove("user:u1"), false);
    await snapshot.refresh();
    assert.equal(applicablePolicy(await snapshot.current(), "u1", [])?.subject, "default:user");
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});
