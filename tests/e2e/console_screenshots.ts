/**
 * `deno task docs:screenshots`: starts the real local suite, signs in to the gateway console in Chromium,
 * makes a little traffic (a limited key driven to 429 with the Anthropic SDK) and writes a screenshot of each
 * console page to docs/console-<page>.png.
 */
import Anthropic from "@anthropic-ai/sdk";
import { startConsoleSuite } from "./support/console_suite.ts";

const DOCS = new URL("../../docs/", import.meta.url).pathname;

await using s = await startConsoleSuite(1100);
const { page, gateway } = s;
await page.getByLabel("Name", { exact: true }).fill("docs example");
await page.getByLabel("Requests per minute").fill("4");
await page.getByRole("button", { name: "Create key" }).click();
const key = await page.locator("#created-key").inputValue();
const sdk = new Anthropic({ apiKey: key, baseURL: gateway, maxRetries: 0 });
const ask = {
  model: "anthropic/claude-fx-tool",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "Hi" }],
};
for (let i = 0; i < 6; i++) await sdk.messages.create(ask).catch(() => {});
await new Promise((r) => setTimeout(r, 500)); // the ledger's batch
for (const name of ["keys", "usage", "requests", "providers"]) {
  await page.goto(`${gateway}/admin/${name}${name === "usage" ? "?step=hour" : ""}`);
  await page.screenshot({ path: `${DOCS}console-${name}.png`, fullPage: true });
  console.log(`wrote docs/console-${name}.png`);
}
