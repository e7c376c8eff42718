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

Deno.test("without Redis, gateway:keys list shows what the usage ledger recorded for each key", async () => {
  await using dir = await tempDir();
  const env = { GATEWAY_DATABASE_URL: `file:${dir.path}/keys.db` };
  const created = await run([
    "create",
    "--name",
    "team-b",
    "--budget-usd",
    "5",
    "--budget-period",
    "day",
    "--json",
  ], env);
  const { id } = JSON.parse(created.out[0]);
  const other = JSON.parse((await run(["create", "--name", "team-c", "--json"], env)).out[0]).id;
  // Rows as a gateway writes them: two in the last minute, one earlier today, one yesterday, one of another key.
  const { openClient } = await import("@switchyard/lib/db.ts");
  const client = await openClient({ url: env.GATEWAY_DATABASE_URL });
  const now = Date.now();
  const startOfDay = Date.UTC(
    new Date(now).getUTCFullYear(),
    new Date(now).getUTCMonth(),
    new Date(now).getUTCDate(),
  );
  const rows: [number, string, number, number][] = [
    [now - 5_000, id, 100, 0.25],
    [now - 20_000, id, 50, 0.5],
    // Earlier today, but not in the last minute (just after midnight there is no such moment: then it is
    // written into the last minute of yesterday's spend instead, and not counted).
    [now - startOfDay > 120_000 ? startOfDay + 1 : startOfDay - 1, id, 1_000, 1],
    [startOfDay - 3_600_000, id, 7, 4],
    [now - 1_000, other, 9, 2],
  ];
  for (const [at, key, tokens, usd] of rows) {
    await client.execute({
      sql:
        "INSERT INTO gateway_usage (at, key_id, model, attempts, input_tokens, output_tokens, cache_read_tokens, " +
        "cache_write_tokens, cost_usd, status, latency_ms, stream, trace_id, request_id) " +
        "VALUES (?, ?, 'm', 1, ?, 1, 0, 0, ?, 200, 1, 0, 't', 'r')",
      args: [at, key, tokens, usd],
    });
  }
  client.close();
  const listed = JSON.parse((await run(["list", "--json"], env)).out[0]) as {
    id: string;
    usage: { source: string; requestsLastMinute: number; tokensLastMinute: number; spentUsd: number };
  }[];
  const usage = listed.find((k) => k.id === id)!.usage;
  assert.equal(usage.source, "ledger");
  assert.equal(usage.requestsLastMinute, 2);
  assert.equal(usage.tokensLastMinute, 152);
  // Today's spend only: the row of yesterday and the other key's row do not count.
  assert.equal(usage.spentUsd, now - startOfDay > 120_000 ? 1.75 : 0.75);
  assert.equal(listed.find((k) => k.id === other)!.usage.spentUsd, 2);
});
