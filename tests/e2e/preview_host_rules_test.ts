/**
 * The preview and dev host rules in a real browser: Debian's chromium reaches the loopback suite under
 * another host name (`--host-resolver-rules`), as a phone on the LAN or a tunnel name would. The preview
 * shows health under that name and the plain-text 403 for the sign-in page; dev shows the 403 for both.
 */
import assert from "node:assert/strict";
import { type BrowserContext, chromium } from "playwright-core";
import { startSuiteTask, type SuiteProcess } from "../auth/suite_process.ts";

const CHROMIUM = "/usr/bin/chromium";
const FOREIGN = "preview.example.test";

async function withBrowser(fn: (context: BrowserContext) => Promise<void>): Promise<void> {
  const exists = await Deno.stat(CHROMIUM).then(() => true, () => false);
  assert.ok(exists, `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  const userDataDir = await Deno.makeTempDir({ prefix: "switchyard-chromium-" });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--host-resolver-rules=MAP ${FOREIGN} 127.0.0.1`,
      "--no-proxy-server",
    ],
  });
  try {
    await fn(context);
  } finally {
    await context.close();
    await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
  }
}

async function visit(context: BrowserContext, url: string): Promise<{ status: number; text: string }> {
  const page = await context.newPage();
  try {
    const response = await page.goto(url);
    assert.ok(response, `no response for ${url}`);
    return { status: response.status(), text: await page.locator("body").innerText() };
  } finally {
    await page.close();
  }
}

function assertRefused(seen: { status: number; text: string }, suite: SuiteProcess) {
  assert.equal(seen.status, 403);
  assert.ok(seen.text.includes(`"${FOREIGN}:${suite.authPort}"`), `names the host: ${seen.text}`);
  assert.ok(seen.text.includes(`Use ${suite.baseUrl} instead`), `names the address to use: ${seen.text}`);
}

Deno.test({
  name: "in Chromium, the preview serves health under another host name and refuses its sign-in page",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using suite = await startSuiteTask("preview");
    await withBrowser(async (context) => {
      const foreign = `http://${FOREIGN}:${suite.authPort}`;
      const health = await visit(context, `${foreign}/api/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(JSON.parse(health.text), { status: "ok", service: "auth" });
      assertRefused(await visit(context, `${foreign}/sign-in`), suite);
      assertRefused(await visit(context, `${foreign}/api/auth/.well-known/openid-configuration`), suite);
      const loopback = await visit(context, `http://127.0.0.1:${suite.authPort}/sign-in`);
      assert.equal(loopback.status, 200);
    });
  },
});

Deno.test({
  name: "in Chromium, the dev server refuses another host name for health and pages alike",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using suite = await startSuiteTask("dev");
    await withBrowser(async (context) => {
      const foreign = `http://${FOREIGN}:${suite.authPort}`;
      assertRefused(await visit(context, `${foreign}/api/health`), suite);
      assertRefused(await visit(context, `${foreign}/sign-in`), suite);
      const health = await visit(context, `http://localhost:${suite.authPort}/api/health`);
      assert.equal(health.status, 200);
    });
  },
});
