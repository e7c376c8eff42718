import assert from "node:assert/strict";
import { runPoliciesCli } from "./policies_cli.ts";

async function run(dir: string, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPoliciesCli(
    args,
    { GATEWAY_DATABASE_URL: `file:${dir}/g.db` },
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

Deno.test("gateway:policies sets, lists and removes policies of users, groups and the default", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal((await run(dir, "set", "--user", "u1", "--rpm", "10", "--models", "fast,openai/x")).code, 0);
    assert.equal(
      (await run(dir, "set", "--group", "Acme/ML", "--budget-usd", "5", "--budget-period", "day")).code,
      0,
    );
    assert.equal((await run(dir, "set", "--default-user", "--tpm", "1000")).code, 0);
    const listed = await run(dir, "list");
    const lines = listed.out.split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^default:user {2}\(tpm 1000\)/);
    assert.match(lines[1], /^group:acme\/ml {2}\(\$5\/day\)/);
    assert.match(lines[2], /^user:u1 {2}\(rpm 10, models fast,openai\/x\)/);
    const json = JSON.parse((await run(dir, "list", "--json")).out);
    assert.equal(json.length, 3);
    assert.equal((await run(dir, "remove", "--user", "u1")).code, 0);
    const missing = await run(dir, "remove", "--user", "u1");
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no policy for user:u1/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gateway:policies refuses bad subjects and limits, naming them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const both = await run(dir, "set", "--user", "u1", "--default-user");
    assert.equal(both.code, 2);
    assert.match(both.err, /exactly one of/);
    assert.match((await run(dir, "set", "--group", "a b")).err, /--group: expected an organisation/);
    assert.match(
      (await run(dir, "set", "--user", "u1", "--rpm", "0")).err,
      /--rpm: expected a positive integer/,
    );
    assert.match((await run(dir, "set", "--user", "u1", "--budget-usd", "5")).err, /needs --budget-period/);
    assert.equal((await run(dir, "frobnicate")).code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
