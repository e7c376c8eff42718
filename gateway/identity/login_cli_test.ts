import assert from "node:assert/strict";
import { configDirOf, main, token } from "./login_cli.ts";

Deno.test("the login file lives in SWITCHYARD_CONFIG_DIR, else XDG_CONFIG_HOME, else ~/.config", () => {
  assert.equal(configDirOf({ SWITCHYARD_CONFIG_DIR: "/a", XDG_CONFIG_HOME: "/b", HOME: "/h" }), "/a");
  assert.equal(configDirOf({ XDG_CONFIG_HOME: "/b", HOME: "/h" }), "/b/switchyard");
  assert.equal(configDirOf({ HOME: "/h" }), "/h/.config/switchyard");
});

Deno.test("gateway:token without a sign-in says to run gateway:login and prints nothing on stdout", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out: string[] = [];
    const err: string[] = [];
    const code = await token({ configDir: dir }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    assert.equal(code, 1);
    assert.deepEqual(out, []);
    assert.match(err.join("\n"), /run deno task gateway:login/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gateway:login without an issuer or client id names what it needs", async () => {
  const err: string[] = [];
  const code = await main(["login"], { SWITCHYARD_CONFIG_DIR: "/nonexistent" }, {
    out: () => {},
    err: (l) => err.push(l),
  });
  assert.equal(code, 2);
  assert.match(err.join("\n"), /--issuer <url> --client-id <id>/);
});
