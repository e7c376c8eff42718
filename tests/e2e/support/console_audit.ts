/**
 * Checks a console page as loaded in Chromium: no horizontal scroll at the viewport's width, a label (or other
 * accessible name) on every form control and button, and every control reached by pressing Tab from the top
 * of the page. Returns what failed, as sentences naming the page and the control.
 */
import type { Page } from "playwright-core";

const CONTROLS = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';

/**
 * Runs in the page (as text: this program's types have no DOM): marks each rendered, focusable control with
 * `data-audit-id` and says whether it has an accessible name — a form control only by its <label> or ARIA
 * (a placeholder or title is not a label), a button or link by its text or ARIA.
 */
const LIST_CONTROLS = `function (selector) {
  const text = (element) => (element?.textContent ?? "").replace(/\\s+/g, " ").trim();
  const nameOf = (element) => {
    const labelledBy = element.getAttribute("aria-labelledby");
    if (labelledBy) return labelledBy.split(" ").map((id) => text(document.getElementById(id))).join(" ").trim();
    const aria = (element.getAttribute("aria-label") ?? "").trim();
    if (aria) return aria;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName)) {
      return [...(element.labels ?? [])].map(text).join(" ").trim();
    }
    return text(element) || (element.querySelector("img[alt], svg[aria-label]")?.getAttribute("alt") ?? "");
  };
  const out = [];
  document.querySelectorAll(selector).forEach((element, i) => {
    if (element.getAttribute("tabindex") === "-1" || element.disabled) return;
    if (!element.getClientRects().length || getComputedStyle(element).visibility === "hidden") return;
    element.dataset.auditId = String(i);
    const name = element.getAttribute("name");
    out.push({
      id: String(i),
      description: "<" + element.tagName.toLowerCase() + (name ? ' name="' + name + '"' : "") + "> “" +
        text(element).slice(0, 40) + "”",
      named: nameOf(element).length > 0,
    });
  });
  return out;
}`;

interface Control {
  id: string;
  description: string;
  named: boolean;
}

/** The problems of the page `page` shows now (`label` names it in the messages); empty when it passes. */
export async function auditConsolePage(page: Page, label: string): Promise<string[]> {
  const problems: string[] = [];
  const width = await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth })",
  ) as { scroll: number; viewport: number };
  if (width.scroll > width.viewport) {
    problems.push(`${label}: scrolls horizontally (${width.scroll} px wide in ${width.viewport} px)`);
  }
  const controls = await page.evaluate(`(${LIST_CONTROLS})(${JSON.stringify(CONTROLS)})`) as Control[];
  for (const control of controls) {
    if (!control.named) problems.push(`${label}: ${control.description} has no label`);
  }
  // Tab from the top of the document; a few presses past the count, in case focus passes the browser UI.
  await page.evaluate("document.activeElement?.blur(); window.scrollTo(0, 0)");
  // Up to twice the count of presses (a scroll region or the browser's own UI may take a stop), until all are
  // reached; the stops are kept to explain a failure.
  const reached = new Set<string>();
  const stops: string[] = [];
  for (let i = 0; i < 2 * controls.length + 5 && reached.size < controls.length; i++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(
      `(() => { const e = document.activeElement; return e ? [e.dataset.auditId ?? null, e.tagName.toLowerCase() + (e.className ? "." + e.className : "")] : [null, "none"]; })()`,
    ) as [string | null, string];
    if (stop[0] !== null) reached.add(stop[0]);
    stops.push(stop[1]);
  }
  const missed = controls.filter((control) => !reached.has(control.id));
  for (const control of missed) problems.push(`${label}: Tab never reaches ${control.description}`);
  if (missed.length) problems.push(`${label}: the Tab stops were ${stops.join(", ")}`);
  if (!controls.length) problems.push(`${label}: no controls found (is this the page meant?)`);
  return problems;
}
