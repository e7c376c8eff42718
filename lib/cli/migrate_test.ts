import assert from "node:assert/strict";

async function migrate(args: string[], env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL("./migrate.ts", import.meta.url).pathname, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

Deno.test("db:migrate refuses a remote URL without --remote and never prints its auth token", async () => {
  const result = await migrate(["--only", "auth"], {
    AUTH_DATABASE_URL: "libsql://db.example.test?authToken=s3cr3t-token",
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /AUTH_DATABASE_URL is remote/);
  assert.doesNotMatch(result.stderr, /s3cr3t-token/);
});

Deno.test("db:migrate answers an unknown option or --only value with the usage and exit code 2", async () => {
  for (const args of [["--bogus"], ["--only", "nope"]]) {
    const result = await migrate(args, {});
    assert.equal(result.code, 2, args.join(" "));
    assert.match(result.stderr, /^error: .*\n\nUsage: deno task db:migrate/);
  }
});
