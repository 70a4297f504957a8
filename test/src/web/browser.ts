/**
 * The browser for the UI tests: Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`)
 * driven by playwright-core, headless. No browser is ever downloaded.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
