/**
 * A person signs in from a terminal and uses the gateway as themselves: the real auth service (device
 * grant), `gateway:login` and `gateway:token` as subprocesses, the gateway validating the OP's access tokens
 * by introspection, and the real Claude Code with `apiKeyHelper` running `gateway:token` through a mock lane;
 * every request lands in the ledger as `user:<sub>`, and no token in any output but `gateway:token`'s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Browser, locationOf, startAuthService } from "../auth/harness.ts";
import { startHarness } from "./harness.ts";
import { PolicyStore } from "../../gateway/identity/policy_store.ts";
import { obtainClaudeCode, runClaudeCode } from "./claude_code_cli.ts";
import { startEgressTrap } from "./egress_trap.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const LOGIN_CLI = new URL("../../gateway/identity/login_cli.ts", import.meta.url).pathname;
const cli = await obtainClaudeCode();
if ("unavailable" in cli) console.warn(`identity_login_test: Claude Code part skipped: ${cli.unavailable}`);

/** Approves `userCode` on /device as the local developer. */
async function approve(base: string, userCode: string) {
  const browser = new Browser();
  const signedIn = await browser.postForm(`${base}/device/sign-in`, { user_code: userCode });
  const consent = await browser.request(locationOf(signedIn, base));
  assert.equal(consent.status, 200, await consent.text());
  const done = await browser.postForm(`${base}/device/decision`, { user_code: userCode, decision: "allow" });
  assert.equal(done.status, 200);
  await done.body?.cancel();
}

function loginCommand(args: string[], configDir: string) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", LOGIN_CLI, ...args],
    env: { SWITCHYARD_CONFIG_DIR: configDir, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
}

Deno.test(
  "gateway:login by device flow, gateway:token as Claude Code's apiKeyHelper, requests attributed to the person",
  e2e,
  async () => {
    await using svc = await startAuthService();
    const gatewayClient = await svc.register({ name: "Gateway", redirectUris: ["http://127.0.0.1:9/cb"] });
    const device = await svc.register({
      name: "Gateway CLI",
      redirectUris: [],
      public: true,
      device: true,
      audience: [gatewayClient.client_id],
    });
    const h = await startHarness({
      GATEWAY_OIDC_ISSUER: svc.issuer,
      GATEWAY_OIDC_CLIENT_ID: gatewayClient.client_id,
      GATEWAY_OIDC_CLIENT_SECRET: gatewayClient.client_secret!,
      GATEWAY_OIDC_TOKEN_CLIENTS: device.client_id,
    });
    const configDir = await Deno.makeTempDir({ prefix: "gateway-login-" });
    try {
      await new PolicyStore(h.db as never).set("default:user", { rpm: 100 });

      // gateway:login: prints where to go and the code, waits for the person, stores the refresh token.
      const child = loginCommand(
        ["login", "--issuer", svc.issuer, "--client-id", device.client_id],
        configDir,
      )
        .spawn();
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let stderr = "";
      let code: string | undefined;
      while (!code) {
        const { value, done } = await reader.read();
        if (done) break;
        stderr += value;
        code = stderr.match(/code ([A-Z]{4}-[A-Z]{4})/)?.[1];
      }
      assert.ok(code, stderr);
      await approve(svc.url, code);
      const pumping = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          stderr += value;
        }
      })();
      const [status, stdout] = await Promise.all([
        child.status,
        new Response(child.stdout).text(),
        pumping,
      ]);
      assert.equal(status.code, 0, stderr);
      assert.match(stderr, /Signed in as local-developer/);
      const file = join(configDir, "gateway-login.json");
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
      const saved = JSON.parse(await Deno.readTextFile(file));
      assert.ok(saved.refresh_token);
      assert.ok(!stdout.includes(saved.refresh_token) && !stderr.includes(saved.refresh_token));
      assert.ok(!stderr.includes(saved.access_token));

      // gateway:token prints an access token the gateway takes as the person.
      const first = await loginCommand(["token"], configDir).output();
      const token = new TextDecoder().decode(first.stdout).trim();
      assert.equal(first.code, 0);
      assert.equal(token, saved.access_token, "a fresh cached token is reused");
      const answer = await fetch(`${h.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          model: "openai/fx-text",
          max_tokens: 32,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
      assert.equal(answer.status, 200, await answer.text());

      // Near expiry it refreshes, rotating the stored refresh token.
      await Deno.writeTextFile(file, JSON.stringify({ ...saved, expires_at: 0 }));
      const renewed = await loginCommand(["token"], configDir).output();
      const fresh = new TextDecoder().decode(renewed.stdout).trim();
      assert.equal(renewed.code, 0, new TextDecoder().decode(renewed.stderr));
      assert.notEqual(fresh, token);
      assert.notEqual(JSON.parse(await Deno.readTextFile(file)).refresh_token, saved.refresh_token);

      if ("wrapper" in cli) {
        const trap = await startEgressTrap();
        const work = await Deno.makeTempDir({ prefix: "claude-code-helper-" });
        try {
          await Deno.mkdir(join(work, "project"));
          await Deno.mkdir(join(work, "home"));
          const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
          const helper =
            `DENO_DIR=${denoDir} SWITCHYARD_CONFIG_DIR=${configDir} NO_COLOR=1 ${Deno.execPath()} run ` +
            `--allow-net --allow-env --allow-read --allow-write ${LOGIN_CLI} token`;
          const run = await runClaudeCode({
            wrapper: cli.wrapper,
            baseUrl: h.url,
            settings: { apiKeyHelper: helper },
            model: "openai/fx-text",
            smallModel: "openai/fx-text",
            prompt: "Say hello.",
            cwd: join(work, "project"),
            home: join(work, "home"),
            proxyUrl: trap.url,
            timeoutMs: 120_000,
          });
          assert.equal(run.code, 0, `${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`);
          assert.equal(run.result?.is_error, false, run.stdout.slice(-1500));
          assert.deepEqual(trap.attempts, []);
        } finally {
          await trap.close();
          await Deno.remove(work, { recursive: true }).catch(() => {});
        }
      }
      await h.ledger.flush();
      const rows = await h.db.selectFrom("gateway_usage").select(["key_id", "status"]).execute();
      const mine = rows.filter((r) => r.key_id === "user:local-developer");
      assert.ok(mine.length >= ("wrapper" in cli ? 2 : 1), JSON.stringify(rows));
      assert.ok(mine.every((r) => r.status === 200), JSON.stringify(mine));
      assert.equal(rows.length, mine.length, "every request is attributed to the person");
    } finally {
      await h.close();
      await Deno.remove(configDir, { recursive: true }).catch(() => {});
    }
  },
);
