/**
 * The gateway console end to end in Chromium through the real local suite: sign in via the auth service,
 * create a key with an RPM limit, use it with the Anthropic SDK until it is limited, see the requests and the
 * 429s in the console, revoke the key, and see the SDK's next call fail with 401.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startConsoleSuite } from "./support/console_suite.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name:
    "an admin signs in, issues a limited key, watches it hit 429 in the console, revokes it and the SDK gets 401",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using s = await startConsoleSuite(390);
    const { page, gateway } = s;
    await Deno.mkdir(`${ROOT}test-artifacts`, { recursive: true });
    assert.equal(
      await page.evaluate("document.documentElement.scrollWidth > window.innerWidth"),
      false,
      "keys fit 390 px",
    );

    await page.getByLabel("Name", { exact: true }).fill("e2e");
    await page.getByLabel("Requests per minute").fill("2");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#created-key").inputValue();
    assert.match(key, /^sy_/);

    const sdk = new Anthropic({ apiKey: key, baseURL: gateway, maxRetries: 0 });
    const ask = {
      model: "anthropic/claude-fx-tool",
      max_tokens: 64,
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    await sdk.messages.create(ask);
    await sdk.messages.create(ask);
    await assert.rejects(sdk.messages.create(ask), (error) => error instanceof Anthropic.RateLimitError);

    // The ledger writes in batches (50 ms here): reload until the three rows are listed.
    let rows = 0;
    for (let i = 0; i < 40 && rows < 3; i++) {
      await page.goto(`${gateway}/admin/requests`);
      rows = await page.locator("tbody tr").count();
      if (rows < 3) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(rows, 3);
    await page.getByLabel(/^Status/).fill("429");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL((url) => url.searchParams.get("status") === "429");
    assert.equal(await page.locator("tbody tr").count(), 1);
    assert.match(await page.locator("tbody tr").first().textContent() ?? "", /429 rate_limit_error/);
    await page.screenshot({ path: `${ROOT}test-artifacts/console-requests.png`, fullPage: true });

    await page.goto(`${gateway}/admin/keys`);
    assert.match(await page.locator("tbody tr").first().textContent() ?? "", /2 rpm/);
    await page.getByRole("link", { name: "Revoke e2e" }).click();
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.waitForURL((url) => url.pathname === "/admin/keys" && url.searchParams.has("revoked"));
    assert.match(await page.getByRole("status").textContent() ?? "", /was revoked/);

    await assert.rejects(sdk.messages.create(ask), (error) => error instanceof Anthropic.AuthenticationError);
  },
});
