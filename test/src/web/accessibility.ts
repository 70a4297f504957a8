/**
 * Accessibility checks for the browser tests: axe-core (WCAG 2.0/2.1/2.2 A and AA rules) run in the
 * page, and a layout check that no table cell or badge cuts its text off. Both evaluate inside the
 * page through the DevTools protocol, which the page's Content-Security-Policy does not restrict, so
 * the app is tested as served.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
/** axe-core's browser bundle. */
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG levels the UI meets: 2.0, 2.1 and 2.2, A and AA. */
export const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

/**
 * Runs axe on the page (or inside `scope`, a CSS selector such as a dialog) and fails with every
 * violation in words, naming `where`.
 */
export async function assertNoAxeViolations(page: Page, where: string, scope?: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const context = scope === undefined ? 'document' : JSON.stringify(scope);
  const violations = (await page.evaluate(
    `window.axe.run(${context}, { runOnly: { type: 'tag', values: ${JSON.stringify(wcagTags)} }, resultTypes: ['violations'] })
       .then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`,
  )) as AxeViolation[];
  const described = violations.map((violation) => `${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `    ${node.target.join(' ')}: ${node.failureSummary.replace(/\n/g, ' ')}`).join('\n')}`);
  assert.deepEqual(described, [], `axe found WCAG violations on ${where}`);
}

/**
 * The table cells, headers and badges whose text is cut off (`scrollWidth` beyond `clientWidth`,
 * which is what an ellipsis or a hidden overflow hides), described as "<table>: <text>".
 */
export async function clippedTexts(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const clipped = [];
    for (const element of document.querySelectorAll('td, th, .mantine-Badge-root, .mantine-Badge-label')) {
      if (element.clientWidth === 0) continue;
      if (element.scrollWidth > element.clientWidth + 1) {
        const table = element.closest('table')?.querySelector('caption')?.textContent ?? 'page';
        clipped.push(table + ': ' + element.textContent.trim().slice(0, 60));
      }
    }
    return clipped;
  })()`)) as string[];
}

/** Describes where the keyboard focus is: "button Create key", "textbox Name", "body". */
export async function focusedControl(page: Page): Promise<string> {
  return (await page.evaluate(`(() => {
    const element = document.activeElement;
    if (element === null || element === document.body) return 'body';
    const role = element.getAttribute('role') ?? (element.tagName === 'BUTTON' ? 'button' : element.tagName === 'A' ? 'link' : element.tagName === 'INPUT' || element.tagName === 'TEXTAREA' ? 'textbox' : element.tagName.toLowerCase());
    const labelled = element.getAttribute('aria-label') ?? (element.labels?.[0]?.textContent ?? element.textContent ?? '');
    return role + ' ' + labelled.replace(/\\s+/g, ' ').replace(/\\s*\\*$/, '').trim();
  })()`)) as string;
}
