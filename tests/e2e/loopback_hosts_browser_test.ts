/**
 * Every URL the README or the suite's start-up log prints works in Chromium from both loopback names, in the
 * one-process suite `deno task start` runs: the auth service's pages and health, the gateway's health, and the
 * admin console's whole sign-in, started on `localhost` as the README advertises and on `127.0.0.1` as the
 * start-up log prints.
 */
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { startSuiteTask } from "../auth/suite_process.ts";
import { startAnthropicMock } from "../gateway/upstreams/anthropic_mock.ts";
import { ANTHROPIC_FIXTURES } from "../gateway/fixtures.ts";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = new URL("../../", import.meta.url).pathname;
const HOSTS = ["localhost", "127.0.0.1"] as const;

/** The browsable URLs the README prints for the default ports, as paths per service. */
async function readmeUrls(): Promise<Array<{ port: 37960 | 37961; path: string }>> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const found = new Map<string, { port: 37960 | 37961; path: string }>();
  for (const match of readme.matchAll(/http:\/\/localhost:(3796[01])(\/[^\s)`"',]*)?/g)) {
    const path = match[2] ?? "/";
    // `/compat/v1/messages` is the POST endpoint the README shows with curl, not a page.
    if (path.startsWith("/compat/v1/")) continue;
    found.set(`${match[1]}${path}`, { port: Number(match[1]) as 37960 | 37961, path });
  }
  return [...found.values()];
}

Deno.test({
  name: "every URL the README and the start-up log print works in Chromium from localhost and 127.0.0.1",
  ignore: !(await Deno.stat(CHROMIUM).then(() => true, () => false)),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const upstream = await startAnthropicMock(ANTHROPIC_FIXTURES, "sk-ant-test");
    await using suite = await startSuiteTask("start", {
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: upstream.url,
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
    try {
      const ports = { 37960: suite.authPort, 37961: suite.gatewayPort };
      const logged = [...suite.stderr().matchAll(/http:\/\/127\.0\.0\.1:(\d+)(\/[^\s)]*)?/g)].map((m) => ({
        port: Number(m[1]),
        path: m[2] ?? "/",
      }));
      assert.ok(
        logged.length >= 4,
        `the start-up log prints both services and their health: ${suite.stderr()}`,
      );
      const urls = [
        ...(await readmeUrls()).map(({ port, path }) => ({ port: ports[port], path })),
        ...logged,
      ];
      for (const host of HOSTS) {
        const context = await browser.newContext();
        const page = await context.newPage();
        for (const { port, path } of urls) {
          const url = `http://${host}:${port}${path}`;
          const response = await page.goto(url);
          const status = response?.status() ?? 0;
          // A service's bare origin and the gateway's API bases (`/compat`, `/openai/v1`: SDK base URLs) are
          // not pages: any answer short of a server error is the answer there (a 404, or a 401 without a key).
          const api = path === "/" ||
            (port === suite.gatewayPort && !path.startsWith("/admin") && path !== "/api/health");
          assert.ok(status > 0 && status < (api ? 500 : 400), `${url} answers ${status}`);
        }
        // The console's whole sign-in, begun on this host name.
        await page.goto(`http://${host}:${suite.gatewayPort}/admin`);
        await page.waitForURL((url) => url.pathname === "/sign-in");
        await page.getByRole("button", { name: "Continue as local developer" }).click();
        await page.waitForURL((url) =>
          url.port === String(suite.gatewayPort) && url.pathname === "/admin/keys"
        );
        assert.equal(await page.getByRole("heading", { level: 1 }).first().textContent(), "Keys");
        await context.close();
      }
    } finally {
      await browser.close();
      await upstream.close();
    }
  },
});
