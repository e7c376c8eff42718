/** `gateway:keys create|update|list` with limits: stored, listed, changed, cleared, and bad values named by flag. */
import assert from "node:assert/strict";
import { tempDir } from "@switchyard/lib/testing.ts";
import { runKeysCli } from "../../gateway/keys/cli.ts";

async function run(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCli(args, env, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err: err.join("\n") };
}

Deno.test("gateway:keys creates a key with limits, lists them with usage, updates and clears them", async () => {
  await using dir = await tempDir();
  const env = { GATEWAY_DATABASE_URL: `file:${dir.path}/keys.db` };
  const created = await run([
    "create",
    "--name",
    "team-a",
    "--rpm",
    "60",
    "--tpm",
    "100000",
    "--max-concurrency",
    "4",
    "--budget-usd",
    "25.5",
    "--budget-period",
    "month",
    "--models",
    "fast, anthropic/claude-sonnet-4-5",
    "--expires",
    "2999-01-01T00:00:00Z",
    "--json",
  ], env);
  assert.equal(created.code, 0, created.err);
  const { id } = JSON.parse(created.out[0]);
  let listed = JSON.parse((await run(["list", "--json"], env)).out[0])[0];
  assert.deepEqual(
    [listed.rpm, listed.tpm, listed.maxConcurrency, listed.budgetUsd, listed.budgetPeriod, listed.models],
    [60, 100000, 4, 25.5, "month", ["fast", "anthropic/claude-sonnet-4-5"]],
  );
  assert.equal(listed.expiresAt, "2999-01-01T00:00:00.000Z");
  assert.equal(listed.admin, false);
  assert.ok("usage" in listed);

  assert.equal(
    (await run(["update", id, "--rpm", "120", "--models", "none", "--budget-usd", "none"], env)).code,
    0,
  );
  listed = JSON.parse((await run(["list", "--json"], env)).out[0])[0];
  assert.deepEqual([listed.rpm, listed.tpm, listed.models, listed.budgetUsd, listed.budgetPeriod], [
    120,
    100000,
    null,
    null,
    null,
  ]);
  assert.equal((await run(["update", "key_missing", "--rpm", "1"], env)).code, 1);
  const admin = await run(["create", "--name", "ops", "--admin", "--json"], env);
  assert.equal(admin.code, 0);
  assert.equal(JSON.parse((await run(["list", "--json"], env)).out[0])[0].admin, true);
});

Deno.test("gateway:keys refuses invalid limit values, naming each flag", async () => {
  await using dir = await tempDir();
  const env = { GATEWAY_DATABASE_URL: `file:${dir.path}/keys.db` };
  const cases: Array<[string[], RegExp]> = [
    [["--rpm", "abc"], /--rpm: expected a positive integer, got "abc"/],
    [["--tpm", "0"], /--tpm: expected a positive integer/],
    [["--max-concurrency", "-2"], /--max-concurrency/],
    [["--budget-usd", "ten", "--budget-period", "day"], /--budget-usd: expected an amount/],
    [["--budget-usd", "10", "--budget-period", "week"], /--budget-period: expected day or month, got "week"/],
    [["--budget-usd", "10"], /--budget-usd needs --budget-period/],
    [["--models", " , "], /--models: expected a comma-separated list/],
    [["--expires", "tomorrow"], /--expires: expected an ISO 8601/],
    [["--expires", "2001-01-01"], /--expires: 2001-01-01 is in the past/],
    [["--rpm", "none"], /--rpm: expected a positive integer, got "none"/],
  ];
  for (const [flags, message] of cases) {
    const result = await run(["create", "--name", "x", ...flags], env);
    assert.equal(result.code, 2, flags.join(" "));
    assert.match(result.err, message);
  }
  const both = await run(["create", "--name", "x", "--rpm", "x", "--tpm", "y"], env);
  assert.match(both.err, /--rpm[\s\S]*--tpm/, "every bad flag is reported together");
  const { out } = await run(["create", "--name", "ok", "--json"], env);
  const { id } = JSON.parse(out[0]);
  const update = await run(["update", id, "--budget-usd", "5"], env);
  assert.equal(update.code, 2);
  assert.match(update.err, /--budget-usd needs --budget-period/);
});
