/**
 * The usage page end to end: a real `svc-local` process serving the bundled build, headless
 * Chromium, and usage totals written into the server's database through the storage port (as
 * another process's meter writes them). The administrator (`usage:read_all` through `admin`) sees
 * everyone's calls, a user their own; the totals, the chart and the table per model, key and user
 * match what was stored; the range, interval and grouping change the report; the CSV download is
 * the server's export; an empty range and a refused range say what to do; axe finds no WCAG
 * violation; and the page works with the keyboard alone.
 */
import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client } from '@svc/sdk';
import { openStorage } from '@svc/server/internals';
import { pollUntil, startServerProcess, storageConfigOfHome, type ServerProcess } from '@svc/server/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertNoAxeViolations, clippedTexts, focusedControl } from './accessibility.js';
import { launchChromium, watchPage } from './browser.js';

const ADMIN = { username: 'admin', password: 'a long admin passphrase for the usage test' };
const CAROL = { username: 'carol', password: 'carol has a long passphrase as well' };
const DAVE = { username: 'dave', password: 'dave never called a model, not once' };
const HOUR = 3_600_000;
/** docs/screenshots with SVC_UPDATE_SCREENSHOTS=1 (`npm run screenshots`), else none. */
const screenshots = process.env['SVC_UPDATE_SCREENSHOTS'] === '1' ? fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url)) : null;
/** The start of the UTC hour `hours` before the current one. */
const hourAgo = (hours: number) => Math.floor(Date.now() / HOUR) * HOUR - hours * HOUR;

describe('usage page (Chromium against svc-local)', () => {
  let home = '';
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let adminKeyId = '';
  let carolKeyId = '';
  const problems: string[] = [];
  const refusals = new Set<string>();

  const title = () => page.evaluate('document.title') as Promise<string>;
  const eventually = async (probe: () => Promise<string>, expected: string) => {
    const seen = await pollUntil(probe, (current) => current === expected, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(seen[seen.length - 1], expected);
  };
  const figure = (testId: string) => page.getByTestId(testId).locator('p').nth(1);
  /** Waits until the figures of the range read `expected` (requests, errors, prompt, completion, total). */
  const waitForTotals = async (expected: [string, string, string, string, string]) => {
    const ids = ['usage-total-requests', 'usage-total-errors', 'usage-total-prompt', 'usage-total-completion', 'usage-total-tokens'];
    await eventually(async () => (await Promise.all(ids.map((id) => figure(id).textContent()))).join(' | '), expected.join(' | '));
  };
  /** The rows of a table as "first cell | second cell | …". */
  const rowsOf = async (table: string) =>
    (await page.getByRole('table', { name: table }).locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim()).join(' | ')))).sort();
  const radio = (group: string, name: string) => page.getByRole('radiogroup', { name: group }).getByRole('radio', { name, exact: true });
  const choose = async (group: string, name: string) => {
    await page.getByRole('radiogroup', { name: group }).getByText(name, { exact: true }).click();
    assert.equal(await radio(group, name).isChecked(), true);
  };
  const logIn = async (target: Page, who: { username: string; password: string }) => {
    await target.goto(`${server.baseUrl}/login`);
    await target.getByRole('textbox', { name: 'Username', exact: true }).fill(who.username);
    await target.getByRole('textbox', { name: 'Password', exact: true }).fill(who.password);
    await target.getByRole('button', { name: 'Log in' }).click();
    await target.getByTestId('signed-in-as').filter({ hasText: who.username }).waitFor();
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-web-usage-'));
    server = await startServerProcess({ SVC_HOME: home });
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.setup.createAdmin(ADMIN);
    await admin.login(ADMIN.username, ADMIN.password);
    await admin.users.create({ ...CAROL, permissions: ['models:read', 'keys:create'] });
    await admin.users.create({ ...DAVE, permissions: [] });
    const adminId = (await admin.auth.me()).id;
    adminKeyId = (await admin.keys.create({ name: 'admin-notebook' })).id;
    const carol = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await carol.login(CAROL.username, CAROL.password);
    const carolId = (await carol.auth.me()).id;
    carolKeyId = (await carol.keys.create({ name: 'carol-laptop' })).id;
    await Promise.all([admin.logout(), carol.logout()]);
    // Written through a storage of the test's own, as another process's meter would.
    const storage = await openStorage(await storageConfigOfHome(home));
    const total = (fields: { hourStart: number; keyId: string | null; userId: string; model: string; calls: number; errors?: number; promptTokens: number; completionTokens: number }) => ({
      errors: 0,
      estimatedCalls: 0,
      latencyMsSum: fields.calls * 200,
      ...fields,
    });
    try {
      await storage.usage.add([
        total({ hourStart: hourAgo(1), keyId: adminKeyId, userId: adminId, model: 'llama-3', calls: 4, errors: 1, promptTokens: 1000, completionTokens: 200 }),
        total({ hourStart: hourAgo(2), keyId: null, userId: adminId, model: 'echo', calls: 2, promptTokens: 50, completionTokens: 50 }),
        total({ hourStart: hourAgo(1), keyId: carolKeyId, userId: carolId, model: 'llama-3', calls: 3, promptTokens: 300, completionTokens: 60 }),
        total({ hourStart: hourAgo(30), keyId: carolKeyId, userId: carolId, model: 'llama-3', calls: 1, promptTokens: 100, completionTokens: 20 }),
        total({ hourStart: hourAgo(24 * 20), keyId: carolKeyId, userId: carolId, model: 'echo', calls: 5, promptTokens: 500, completionTokens: 500 }),
      ]);
    } finally {
      await storage.close();
    }
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce', acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    watchPage(page, { problems, refusals });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("shows an administrator everyone's usage of the last 7 days: totals, a chart and a table by model", async () => {
    await logIn(page, ADMIN);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Models', 'Playground', 'Users', 'API keys', 'Usage', 'Security', 'Audit']);
    await nav.getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL('**/usage');
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
    await eventually(title, 'Usage · svc');
    assert.equal(await radio('Range', '7 days').isChecked(), true);
    assert.equal(await radio('Interval', 'Daily').isChecked(), true);
    await waitForTotals(['10', '1', '1,450', '330', '1,780']);
    await page.getByTestId('usage-range').filter({ hasText: "Everyone's usage from" }).waitFor();
    // The chart: an image named by its title and described in words; its bars add up to the total.
    const chart = page.getByRole('img', { name: 'Tokens per day (UTC)' });
    await chart.waitFor();
    assert.match((await page.locator('[data-testid="usage-chart"] desc').textContent()) ?? '', /^1,780 tokens from .+; the busiest day was .+ with [\d,]+\.$/);
    const bars = await page.locator('[data-testid="usage-chart"] rect[data-value]').evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))));
    assert.equal(bars.reduce((sum, value) => sum + value, 0), 1780);
    assert.deepEqual(await rowsOf('Usage by model'), ['echo | 2 | 0 | 50 | 50 | 100 | 200 ms | —', 'llama-3 | 8 | 1 | 1,400 | 280 | 1,680 | 200 ms | —']);
    await assertNoAxeViolations(page, 'the usage page');
    assert.deepEqual(await clippedTexts(page), []);
    if (screenshots !== null) await page.screenshot({ path: join(screenshots, 'usage.png'), fullPage: true });
  });

  it('switches the chart to requests and shows its numbers as a table', async () => {
    await choose('The chart shows', 'Requests');
    await page.getByRole('img', { name: 'Requests per day (UTC)' }).waitFor();
    const bars = await page.locator('[data-testid="usage-chart"] rect[data-value]').evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))));
    assert.equal(bars.reduce((sum, value) => sum + value, 0), 10);
    const toggle = page.getByRole('button', { name: "Show the chart's numbers" });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    const periods = page.getByRole('table', { name: 'Usage per day' });
    await periods.waitFor();
    // One row per day of the range (the quiet ones too); their requests add up to the total.
    const requests = await periods.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Number(row.querySelectorAll('td')[1]?.textContent?.replace(/,/g, ''))));
    assert.ok(requests.length >= 7 && requests.length <= 8, `${requests.length} days`);
    assert.equal(requests.reduce((sum, value) => sum + value, 0), 10);
    await assertNoAxeViolations(page, 'the usage page with the chart numbers');
    await page.getByRole('button', { name: "Hide the chart's numbers" }).click();
    await choose('The chart shows', 'Tokens');
  });

  it('groups by key and by user, naming keys, their owners and session calls', async () => {
    await choose('Group by', 'API key');
    await page.getByRole('table', { name: 'Usage by API key' }).waitFor();
    assert.deepEqual(await rowsOf('Usage by API key'), [
      'No key (signed-in sessions) | 2 | 0 | 50 | 50 | 100 | 200 ms | —',
      'admin-notebook | 4 | 1 | 1,000 | 200 | 1,200 | 200 ms | —',
      'carol-laptop (carol) | 4 | 0 | 400 | 80 | 480 | 200 ms | —',
    ]);
    await choose('Group by', 'User');
    await page.getByRole('table', { name: 'Usage by user' }).waitFor();
    assert.deepEqual(await rowsOf('Usage by user'), ['admin | 6 | 1 | 1,050 | 250 | 1,300 | 200 ms | —', 'carol | 4 | 0 | 400 | 80 | 480 | 200 ms | —']);
    await assertNoAxeViolations(page, 'the usage page grouped by user');
    await choose('Group by', 'Model');
  });

  it('changes the range: the last 24 hours hour by hour, 30 days, and picked days', async () => {
    await choose('Range', '24 h');
    assert.equal(await radio('Interval', 'Hourly').isChecked(), true, 'a day is shown hour by hour');
    await waitForTotals(['9', '1', '1,350', '310', '1,660']);
    await page.getByRole('img', { name: 'Tokens per hour (UTC)' }).waitFor();
    await choose('Range', '30 days');
    await waitForTotals(['15', '1', '1,950', '830', '2,780']);
    await choose('Interval', 'Hourly');
    await waitForTotals(['15', '1', '1,950', '830', '2,780']);
    await choose('Interval', 'Daily');
    // Picked days: a range the server would refuse is explained before anything is sent.
    await choose('Range', 'Dates');
    await page.getByRole('alert').filter({ hasText: 'Choose the first day of the range.' }).waitFor();
    const day = (hoursAgo: number) => new Date(hourAgo(hoursAgo)).toISOString().slice(0, 10);
    await page.getByLabel('First day').fill(day(0));
    await page.getByLabel('Last day').fill(day(48));
    await page.getByRole('alert').filter({ hasText: 'The range ends before it starts' }).waitFor();
    await page.getByLabel('First day').fill(day(24 * 40));
    await page.getByLabel('Last day').fill(day(0));
    await choose('Interval', 'Hourly');
    await page.getByRole('alert').filter({ hasText: 'An hourly report spans at most 31 days: choose fewer days, or Daily.' }).waitFor();
    await choose('Interval', 'Daily');
    await waitForTotals(['15', '1', '1,950', '830', '2,780']);
    await assertNoAxeViolations(page, 'the usage page with picked days');
  });

  it("shows the server's refusal with what to do next", async () => {
    // Up to now (an empty last day) from 40 days back, hour by hour: only the server knows "now", so
    // only the server can refuse it.
    await page.getByLabel('First day').fill(new Date(Date.now() - 40 * 24 * HOUR).toISOString().slice(0, 10));
    await page.getByLabel('Last day').fill('');
    await choose('Interval', 'Hourly');
    const refusal = page.getByRole('alert').filter({ hasText: 'Could not load the usage' });
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /31 days/);
    await page.getByText('Choose a shorter range, or Daily instead of Hourly.').waitFor();
    assert.equal(await page.getByTestId('usage-chart').count(), 0, 'no old chart shown as if it answered');
    await assertNoAxeViolations(page, 'the usage page with a refused range');
    await choose('Interval', 'Daily');
    await page.getByTestId('usage-total-tokens').waitFor();
    await choose('Range', '7 days');
    await waitForTotals(['10', '1', '1,450', '330', '1,780']);
  });

  it("downloads the server's CSV export of the report on screen", async () => {
    await choose('Group by', 'API key');
    await page.getByRole('table', { name: 'Usage by API key' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    assert.match(download.suggestedFilename(), /^svc-usage-.+\.csv$/);
    const csv = await readFile((await download.path()) as string, 'utf8');
    const [header, ...rows] = csv.trim().split('\r\n');
    assert.equal(header, 'period_start,group,calls,errors,prompt_tokens,completion_tokens,total_tokens,estimated_calls,mean_latency_ms');
    const byGroup = new Map<string, number>();
    for (const row of rows) {
      const [, group, calls] = row.split(',');
      byGroup.set(group as string, (byGroup.get(group as string) ?? 0) + Number(calls));
    }
    assert.deepEqual(Object.fromEntries(byGroup), { [adminKeyId]: 4, [carolKeyId]: 4, '': 2 });
    await page.getByRole('link', { name: /^Download svc-usage-/ }).waitFor();
    await choose('Group by', 'Model');
  });

  it('shows a user only their own usage, and an account without calls an empty state that says why', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    try {
      const carol = await other.newPage();
      carol.on('pageerror', (error) => problems.push(error.message));
      await logIn(carol, CAROL);
      assert.deepEqual(await carol.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents(), ['Playground', 'API keys', 'Usage']);
      await carol.goto(`${server.baseUrl}/usage`);
      await carol.getByTestId('usage-range').filter({ hasText: 'Your usage from' }).waitFor();
      assert.equal(await carol.getByText('Only my usage').count(), 0, 'no switch for someone who sees only their own');
      await carol.getByTestId('usage-total-tokens').filter({ hasText: '480' }).waitFor();
      await carol.getByRole('radiogroup', { name: 'Group by' }).getByText('API key', { exact: true }).click();
      await carol.getByRole('table', { name: 'Usage by API key' }).getByRole('cell', { name: 'carol-laptop', exact: true }).waitFor();
      await assertNoAxeViolations(carol, "a user's own usage page");
      await carol.getByRole('button', { name: 'Log out' }).click();
      await carol.waitForURL('**/login');

      // Dave holds no permission: the usage page is the one page he may open, and it is empty.
      await logIn(carol, DAVE);
      await carol.waitForURL('**/usage');
      assert.deepEqual(await carol.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents(), ['Usage']);
      const empty = carol.getByTestId('usage-empty');
      await empty.getByText('No model calls in this range').waitFor();
      assert.match(await empty.innerText(), /Choose a longer range/);
      assert.equal(await carol.getByTestId('usage-chart').count(), 0);
      await assertNoAxeViolations(carol, 'the empty usage page');
    } finally {
      await other.close();
    }
  });

  it('fits a phone: nothing wider than the screen, no cell cut short', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('table', { name: 'Usage by model' }).waitFor();
    await waitForTotals(['10', '1', '1,450', '330', '1,780']);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true);
    assert.deepEqual(await clippedTexts(page), []);
    await assertNoAxeViolations(page, 'the usage page at phone width');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('can be used with the keyboard alone: navigation, range, grouping, the chart numbers and the download', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce', acceptDownloads: true });
    try {
      const keyboard = await other.newPage();
      keyboard.on('pageerror', (error) => problems.push(error.message));
      const focused = () => focusedControl(keyboard);
      /** The focused radio button's group and label: "Range: 7 days". */
      const focusedRadio = () =>
        keyboard.evaluate(`(() => {
          const element = document.activeElement;
          if (!(element instanceof HTMLInputElement) || element.type !== 'radio') return 'not a radio';
          const group = element.closest('[role="radiogroup"]');
          const name = group?.getAttribute('aria-label') ?? document.getElementById(group?.getAttribute('aria-labelledby') ?? '')?.textContent ?? '';
          return name + ': ' + (element.labels?.[0]?.textContent ?? '');
        })()`) as Promise<string>;
      const tabTo = async (probe: () => Promise<string>, expected: string) => {
        for (let i = 0; i < 30 && (await probe()) !== expected; i += 1) await keyboard.keyboard.press('Tab');
        assert.equal(await probe(), expected);
      };
      await keyboard.goto(`${server.baseUrl}/login`);
      await keyboard.getByRole('heading', { name: 'Log in to svc' }).waitFor();
      await keyboard.keyboard.type(ADMIN.username);
      await keyboard.keyboard.press('Tab');
      await keyboard.keyboard.type(ADMIN.password);
      await keyboard.keyboard.press('Enter');
      await keyboard.getByRole('heading', { name: 'Models', exact: true }).waitFor();
      await tabTo(focused, 'link Usage');
      await keyboard.keyboard.press('Enter');
      await keyboard.waitForURL('**/usage');
      await keyboard.getByTestId('usage-total-tokens').filter({ hasText: '1,780' }).waitFor();
      assert.equal(await keyboard.evaluate('document.activeElement?.id'), 'main-content', 'after the navigation the focus is on the content');

      // Arrow keys move within a choice; Tab moves between them.
      await tabTo(focusedRadio, 'Range: 7 days');
      await keyboard.keyboard.press('ArrowLeft');
      assert.equal(await focusedRadio(), 'Range: 24 h');
      await keyboard.getByTestId('usage-total-tokens').filter({ hasText: '1,660' }).waitFor();
      await tabTo(focusedRadio, 'Group by: Model');
      await keyboard.keyboard.press('ArrowRight');
      assert.equal(await focusedRadio(), 'Group by: API key');
      await keyboard.getByRole('table', { name: 'Usage by API key' }).getByRole('cell', { name: 'admin-notebook', exact: true }).waitFor();

      await tabTo(focused, "button Show the chart's numbers");
      await keyboard.keyboard.press('Enter');
      await keyboard.getByRole('table', { name: 'Usage per hour' }).waitFor();
      assert.equal(await focused(), "button Hide the chart's numbers", 'the toggle keeps the focus');

      await keyboard.keyboard.press('Shift+Tab');
      for (let i = 0; i < 30 && (await focused()) !== 'button Download CSV'; i += 1) await keyboard.keyboard.press('Shift+Tab');
      assert.equal(await focused(), 'button Download CSV');
      const [download] = await Promise.all([keyboard.waitForEvent('download'), keyboard.keyboard.press('Enter')]);
      assert.match(download.suggestedFilename(), /^svc-usage-.+\.csv$/);
    } finally {
      await other.close();
    }
  });

  it('raised no script error, and no refused call but the range the server refuses on purpose', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual([...refusals].sort(), [
      '400 /v1/usage', // an hourly report of 40 days
      '401 /v1/auth/me', // the app asking who is logged in before the login
      '401 /v1/auth/session/refresh', // no session cookie yet
    ]);
  });
});
