/**
 * The real local suite (`deno task dev` as a subprocess, `--watch` included: the gateway ends its SIGTERM
 * drain by the signal's default action, which stops the watcher too; fresh databases) with Anthropic pointed
 * at the loopback mock upstream, and Debian's chromium (playwright-core) signed in to the gateway console through
 * the auth service's "Continue as local developer". Shared by the console's browser test and
 * `deno task docs:screenshots`.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { startSuiteTask, type SuiteProcess } from "../../auth/suite_process.ts";
import { startAnthropicMock } from "../../gateway/upstreams/anthropic_mock.ts";
import type { MockUpstream } from "../../gateway/upstreams/mock_server.ts";
import { ANTHROPIC_FIXTURES } from "../../gateway/fixtures.ts";

const CHROMIUM = "/usr/bin/chromium";

/** A running suite with a signed-in console page. */
export interface ConsoleSuite extends AsyncDisposable {
  /** The gateway origin the console is served from. */
  gateway: string;
  suite: SuiteProcess;
  upstream: MockUpstream;
  context: BrowserContext;
  page: Page;
}

/** Starts everything and signs in; `width` is the viewport width. */
export async function startConsoleSuite(width = 1280): Promise<ConsoleSuite> {
  const exists = await Deno.stat(CHROMIUM).then(() => true, () => false);
  if (!exists) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
  const upstream = await startAnthropicMock(ANTHROPIC_FIXTURES, "sk-ant-test");
  const suite = await startSuiteTask("dev", {
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: upstream.url,
    GATEWAY_USAGE_FLUSH_MS: "50",
    GATEWAY_KEY_CACHE_TTL_MS: "200",
  }).catch(async (error) => {
    await upstream.close();
    throw error;
  });
  const gateway = `http://127.0.0.1:${suite.gatewayPort}`;
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
    ],
    viewport: { width, height: 900 },
  });
  const close = async () => {
    await context.close().catch(() => {});
    await suite[Symbol.asyncDispose]();
    await upstream.close();
    await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
  };
  try {
    const page = await context.newPage();
    await page.goto(`${gateway}/admin`);
    await page.waitForURL((url) => url.pathname === "/sign-in");
    await page.getByRole("button", { name: "Continue as local developer" }).click();
    await page.waitForURL((url) => url.origin === gateway && url.pathname === "/admin/keys");
    return { gateway, suite, upstream, context, page, [Symbol.asyncDispose]: close };
  } catch (error) {
    await close();
    throw error;
  }
}
