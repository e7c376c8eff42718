/**
 * `deno task dev` wiring (suite_console.ts): the console's client is registered once and reused, it doubles
 * as the gateway's introspection client, and a device client meant for it is registered for gateway:login.
 */
import assert from "node:assert/strict";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { openAuthDatabase } from "../auth/better_auth/database.ts";
import { wireLocalConsole } from "../suite_console.ts";

Deno.test("local dev wires the console and the gateway's identities to the local auth service, once", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${dir}/auth.db`;
  const database = await openAuthDatabase(url);
  try {
    await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
    const env = { AUTH_LOCAL_MODE: "true", AUTH_DATABASE_URL: url, AUTH_BASE_URL: "http://localhost:37960" };
    const first = await wireLocalConsole(env, "http://localhost:37961");
    assert.equal(first.GATEWAY_OIDC_ISSUER, "http://localhost:37960/api/auth");
    assert.equal(first.GATEWAY_OIDC_CLIENT_ID, first.GATEWAY_CONSOLE_CLIENT_ID);
    const device = await database.client.execute({
      sql: "SELECT grant_types, metadata, token_endpoint_auth_method FROM oauth_client WHERE client_id = ?",
      args: [first.GATEWAY_OIDC_TOKEN_CLIENTS],
    });
    assert.match(String(device.rows[0].grant_types), /device_code/);
    assert.deepEqual(JSON.parse(String(device.rows[0].metadata)).audience, [first.GATEWAY_OIDC_CLIENT_ID]);
    const again = await wireLocalConsole(env, "http://localhost:37961");
    assert.deepEqual(again, first, "reused on the next start");
    const operator = await wireLocalConsole(
      { ...env, GATEWAY_OIDC_ISSUER: "https://op.example" },
      "http://localhost:37961",
    );
    assert.equal(operator.GATEWAY_OIDC_ISSUER, undefined, "the operator's own OP is left alone");
  } finally {
    database.client.close();
    await Deno.remove(dir, { recursive: true });
  }
});
