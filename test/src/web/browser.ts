/**
 * The browser for the UI tests: Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`)
 * driven by playwright-core, headless. No browser is ever downloaded.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian installs Chromium; `SVC_CHROMIUM` overrides it. */
export const chromiumPath = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';

/** Launches headless Chromium, or fails with a line that says how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: install it with apt-get install -y --no-install-recommends chromium (.ci/run does), or set SVC_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

/** What a page met that the steps did not ask for, gathered by {@link watchPage}. */
export interface PageProblems {
  /** Script errors and console errors, as their text. */
  readonly problems: string[];
  /** The API refusals the page met, as "401 /v1/auth/me": a test compares them with those its steps provoke. */
  readonly refusals: Set<string>;
}

/**
 * Gathers `page`'s script errors, console errors (a CSP violation, say: the page would not work as
 * served) and refused requests into `into`.
 */
export function watchPage(page: Page, into: PageProblems): void {
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const refused = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text());
    if (refused === null) into.problems.push(message.text());
    else into.refusals.add(`${refused[1]} ${new URL(message.location().url).pathname}`);
  });
  page.on('pageerror', (error) => into.problems.push(error.message));
}
