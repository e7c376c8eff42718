/**
 * The gateway console end to end in Chromium through the real local suite: sign in via the auth service,
 * create a key with an RPM limit, use it with the Anthropic SDK until it is limited, see the requests and the
 * 429s in the console, revoke the key, and see the SDK's next call fail with 401.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startConsoleSuite } from "./support/console_suite.ts";
import { auditConsolePage } from "./support/console_audit.ts";

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

Deno.test({
  name:
    "every console page fits 360 px without horizontal scroll, labels every control and reaches each by Tab",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using s = await startConsoleSuite(360);
    const { page, gateway } = s;
    // Some traffic first, so the tables and charts have rows at their widest.
    await page.getByLabel("Name", { exact: true }).fill("a rather long key name for a narrow screen");
    await page.getByLabel("Requests per minute").fill("2");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#created-key").inputValue();
    const problems = await auditConsolePage(page, "keys (new key shown)");
    const sdk = new Anthropic({ apiKey: key, baseURL: gateway, maxRetries: 0 });
    const ask = {
      model: "anthropic/claude-fx-tool",
      max_tokens: 64,
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    for (let i = 0; i < 3; i++) await sdk.messages.create(ask).catch(() => {});
    let rows = 0;
    for (let i = 0; i < 40 && rows < 3; i++) {
      await page.goto(`${gateway}/admin/requests`);
      rows = await page.locator("tbody tr").count();
      if (rows < 3) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(rows, 3, "the three requests are listed");

    await page.goto(`${gateway}/admin/keys`);
    const editHref = await page.locator('a[href^="/admin/keys/key_"]').first().getAttribute("href");
    assert.ok(editHref, "the keys table links to a key");
    const pages: Array<[string, string, number]> = [
      ["keys", "/admin/keys", 200],
      ["key edit", editHref.replace(/\/revoke$/, ""), 200],
      ["key revoke", `${editHref.replace(/\/revoke$/, "")}/revoke`, 200],
      ["usage", "/admin/usage", 200],
      ["usage hourly by model", "/admin/usage?step=hour&by=model", 200],
      ["usage with errors", "/admin/usage?since=nope&step=week", 400],
      ["requests", "/admin/requests", 200],
      ["providers", "/admin/providers", 200],
    ];
    for (const [label, path, status] of pages) {
      const response = await page.goto(`${gateway}${path}`);
      assert.equal(response?.status(), status, `${label} answers ${status}`);
      problems.push(...await auditConsolePage(page, label));
    }
    // The 403 page: the create-key form posted with a token that is not the session's.
    await page.goto(`${gateway}/admin/keys`);
    await page.locator('form[action="/admin/keys"] input[name="_csrf"]').evaluate((
      input: { value: string },
    ) => input.value = "not-the-token");
    await page.getByLabel("Name", { exact: true }).fill("refused");
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Create key" }).click(),
    ]);
    assert.equal(refused.status(), 403);
    await page.waitForLoadState();
    problems.push(...await auditConsolePage(page, "403"));
    assert.deepEqual(problems, []);

    // The audit itself finds each kind of fault: a page too wide, an unlabelled field, a control Tab skips
    // (on a blank page: the console's CSP would refuse the inline style).
    const probe = await s.context.newPage();
    await probe.setContent(`<main><div style="width:500px">wide</div>
      <label>Named <input name="named"></label><input name="bare" placeholder="no label">
      <div inert><button>Skipped</button></div></main>`);
    const faults = await auditConsolePage(probe, "faulty");
    assert.deepEqual(faults.slice(0, 3), [
      "faulty: scrolls horizontally (508 px wide in 360 px)",
      'faulty: <input name="bare"> “” has no label',
      "faulty: Tab never reaches <button> “Skipped”",
    ]);
    assert.match(faults[3], /^faulty: the Tab stops were input, input, /);
    assert.equal(faults.length, 4);
  },
});
