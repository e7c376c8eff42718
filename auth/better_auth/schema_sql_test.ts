import assert from "node:assert/strict";
import { schemaSql } from "../cli/schema_generate.ts";
import { toSnakeCase } from "./schema_sql.ts";

const MIGRATION = new URL("../../migrations/0001_initial.sql", import.meta.url);

Deno.test("the schema generated from the auth config is byte-identical to migrations/0001_initial.sql", async () => {
  assert.equal(schemaSql(), await Deno.readTextFile(MIGRATION));
});

/** Runs `db:schema:generate` as the task does, with `args` and an environment that holds no database URL. */
async function generate(args: string[] = []) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      new URL("../cli/schema_generate.ts", import.meta.url).pathname,
      ...args,
    ],
    env: { AUTH_DATABASE_URL: "", AUTH_SECRET: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

Deno.test("db:schema:generate prints the schema and needs no database URL or credentials", async () => {
  const output = await generate();
  assert.equal(output.code, 0, output.stderr);
  assert.equal(output.stdout, await Deno.readTextFile(MIGRATION));
});

Deno.test("snake_case conversion follows Better Auth's word split", () => {
  assert.equal(toSnakeCase("oauthAccessToken"), "oauth_access_token");
  assert.equal(toSnakeCase("requirePKCE"), "require_pkce");
  assert.equal(toSnakeCase("emailVerified"), "email_verified");
});

Deno.test("db:schema:generate answers an unknown option with the usage and exit code 2, not a stack trace", async () => {
  const output = await generate(["--bogus"]);
  assert.equal(output.code, 2, output.stderr);
  assert.match(output.stderr, /^error: .*--bogus.*\n\nUsage: deno task db:schema:generate/);
  assert.equal(output.stdout, "");
});
