import assert from "node:assert/strict";
import { z } from "zod";
import {
  ConfigError,
  databaseUrlSetting,
  flagSetting,
  httpUrlSetting,
  portSetting,
  readConfig,
} from "./config.ts";

const schema = z.object({
  PORT: portSetting(8080),
  DATABASE_URL: databaseUrlSetting("file:.data/x.db"),
  BASE_URL: httpUrlSetting(),
  DEBUG: flagSetting(false),
});

Deno.test("readConfig applies defaults and freezes the result", () => {
  const config = readConfig(schema, { BASE_URL: "http://localhost:1/" });
  assert.deepEqual(config, {
    PORT: 8080,
    DATABASE_URL: "file:.data/x.db",
    BASE_URL: "http://localhost:1",
    DEBUG: false,
  });
  assert.ok(Object.isFrozen(config));
});

Deno.test("readConfig treats empty values as unset", () => {
  const config = readConfig(schema, { PORT: "", BASE_URL: "https://a.example" });
  assert.equal(config.PORT, 8080);
});

Deno.test("readConfig reports every bad key at once, naming each", () => {
  let error: ConfigError | undefined;
  try {
    readConfig(schema, { PORT: "70000", DATABASE_URL: "postgres://x", DEBUG: "maybe" });
  } catch (caught) {
    error = caught as ConfigError;
  }
  assert.ok(error instanceof ConfigError);
  const keys = error.problems.map((p) => p.key);
  assert.deepEqual(keys, ["BASE_URL", "DATABASE_URL", "DEBUG", "PORT"]);
  assert.match(error.message, /PORT: expected a port number 0-65535, got "70000"/);
  assert.match(error.message, /DATABASE_URL: expected a libSQL database URL/);
  assert.match(error.message, /BASE_URL: is required/);
  assert.equal(error.code, "CONFIG_INVALID");
});

Deno.test("portSetting rejects non-numeric ports", () => {
  for (const bad of ["abc", "-1", "1.5", "65536"]) {
    assert.throws(() => readConfig(schema, { PORT: bad, BASE_URL: "http://x" }), /PORT/);
  }
});

Deno.test("databaseUrlSetting accepts local files and remote libSQL URLs only", () => {
  for (const good of ["file:a.db", "libsql://db.example.turso.io", "https://db.example"]) {
    assert.equal(readConfig(schema, { DATABASE_URL: good, BASE_URL: "http://x" }).DATABASE_URL, good);
  }
  for (const bad of ["file:", "mysql://x", "not a url", "libsql://"]) {
    assert.throws(() => readConfig(schema, { DATABASE_URL: bad, BASE_URL: "http://x" }), /DATABASE_URL/);
  }
});

Deno.test("httpUrlSetting refuses other schemes", () => {
  assert.throws(() => readConfig(schema, { BASE_URL: "ftp://x" }), /BASE_URL: expected an http or https URL/);
});
