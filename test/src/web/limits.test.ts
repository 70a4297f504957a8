/**
 * Usage limits on the keys and users pages, end to end: a real `svc-local` process (which stores
 * limits and meters model calls), headless Chromium. A real chat call with a user's key is metered,
 * and the pages show it as the key's and the user's use today; an administrator sets a user's
 * limits and a key's (per model too) in the dialogs, and on a new key in the create dialog; a key's
 * limit above its owner's is refused by the server, in words, and nothing is stored; limits are
 * removed again; the owner of a key sees its limits and use; axe finds no WCAG violation in the
 * pages and dialogs; the limits dialog works with the keyboard alone. Each change is checked
 * through the SDK, so the page is not just drawn.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client } from '@svc/sdk';
import { pollUntil, startServerProcess, type ServerProcess } from '@svc/server/testing';
import type { Browser, Page } from 'playwright-core';
import { assertNoAxeViolations, clippedTexts, focusedControl } from './accessibility.js';
import { launchChromium, watchPage } from './browser.js';

const ADMIN = { username: 'admin', password: 'a long admin passphrase for the limits test' };
const CAROL = { username: 'carol', password: 'carol has a long passphrase as well' };
/** docs/screenshots with SVC_UPDATE_SCREENSHOTS=1 (`npm run screenshots`), else none. */
const screenshots = process.env['SVC_UPDATE_SCREENSHOTS'] === '1' ? fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url)) : null;

describe('usage limits on the keys and users pages (Chromium against svc-local)', () => {
  let home = '';
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let admin: Client;
  let carolId = '';
  let carolKeyId = '';
  /** The tokens of carol's one chat call, as the server metered them. */
  let carolTokens = 0;
  const problems: string[] = [];
  const refusals = new Set<string>();

  const dialog = (name: string) => page.getByRole('dialog', { name });
  const rowOf = (table: string, text: string) => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: text });
  const eventually = async (probe: () => Promise<string>, expected: string) => {
    const seen = await pollUntil(probe, (current) => current === expected, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(seen[seen.length - 1], expected);
  };
  const keyLimits = async (name: string) => (await admin.keys.list()).find((key) => key.name === name)?.limits ?? null;
  const userLimits = async (username: string) => (await admin.users.list()).find((user) => user.username === username)?.limits ?? null;
  const chooseMode = async (scope: ReturnType<typeof dialog>, mode: string) => {
    await scope.getByRole('radiogroup', { name: 'Limits of its own' }).getByText(mode, { exact: true }).click();
    assert.equal(await scope.getByRole('radio', { name: mode, exact: true }).isChecked(), true);
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-web-limits-'));
    server = await startServerProcess({ SVC_HOME: home });
    admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.setup.createAdmin(ADMIN);
    await admin.login(ADMIN.username, ADMIN.password);
    carolId = (await admin.users.create({ ...CAROL, permissions: ['models:read', 'keys:create'] })).id;
    await admin.models.launch({ model_name: 'echo', model_uid: 'echo' });
    const carol = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await carol.login(CAROL.username, CAROL.password);
    const carolKey = await carol.keys.create({ name: 'carol-laptop' });
    carolKeyId = carolKey.id;
    await carol.logout();
    // One real call with carol's key: the server meters it (the report flushes the meter first).
    const withKey = new Client({ baseUrl: server.baseUrl, apiKey: carolKey.key, maxRetries: 0 });
    await withKey.inference.chatCompletion({ model: 'echo', messages: [{ role: 'user', content: 'count these tokens, please' }] });
    const report = await admin.usage.report({ start: 'now-1d', interval: 'day', group_by: 'key', key_id: carolKeyId });
    carolTokens = report.data.reduce((sum, row) => sum + row.total_tokens, 0);
    assert.ok(carolTokens > 0, 'the call was metered');

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    watchPage(page, { problems, refusals });
    await page.goto(`${server.baseUrl}/login`);
    await page.getByRole('textbox', { name: 'Username', exact: true }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('signed-in-as').filter({ hasText: ADMIN.username }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("shows each user's limits and use today, and sets a user's limits in the dialog", async () => {
    await page.goto(`${server.baseUrl}/users`);
    const carolRow = rowOf('Users', 'carol');
    await carolRow.getByText('None', { exact: true }).waitFor();
    await carolRow.getByText(`Today ${carolTokens} tokens, 1 request · this month ${carolTokens} tokens, 1 request`).waitFor();
    await assertNoAxeViolations(page, 'the users page with limits');
    await page.getByRole('button', { name: 'Limits of carol' }).click();
    const limits = dialog('Limits of carol');
    await limits.waitFor();
    assert.equal(await limits.getByRole('radio', { name: 'No limits', exact: true }).isChecked(), true);
    await chooseMode(limits, 'Set limits');
    await assertNoAxeViolations(page, 'the limits dialog', '[role="dialog"]');
    await limits.getByRole('textbox', { name: 'Tokens per minute', exact: true }).fill('1000');
    await limits.getByRole('textbox', { name: 'Token budget', exact: true }).fill('2000');
    await limits.getByRole('combobox', { name: 'Budget period' }).click();
    await page.getByRole('option', { name: 'Per day' }).click();
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.waitFor({ state: 'detached' });
    await eventually(() => focusedControl(page), 'button Limits of carol');
    await carolRow.getByText('1,000 tokens/min · 2,000 tokens/day').waitFor();
    const percent = Math.floor((carolTokens / 2000) * 100);
    await carolRow.getByText(`Budget: ${carolTokens} of 2,000 tokens today (${percent} %)`).waitFor();
    const stored = await userLimits('carol');
    assert.equal(stored?.tokens_per_minute, 1000);
    assert.deepEqual(stored?.token_budget, { tokens: 2000, period: 'day' });
    assert.equal(stored?.requests_per_minute ?? null, null);
  });

  it("refuses a key limit above its owner's in words and stores nothing, then sets the key's limits per model", async () => {
    await page.goto(`${server.baseUrl}/keys`);
    const keyRow = rowOf('API keys', 'carol-laptop');
    await keyRow.getByText("None of its own (the owner's apply)").waitFor();
    await keyRow.getByText(`Today ${carolTokens} tokens, 1 request`, { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Limits of key carol-laptop' }).click();
    const limits = dialog('Limits of key carol-laptop');
    await chooseMode(limits, 'Set limits');
    // Checked in the page first: a model row needs a name and a limit.
    await limits.getByRole('button', { name: 'Add a model limit' }).click();
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.getByRole('alert').filter({ hasText: 'Name the model, or remove this row' }).waitFor();
    await limits.getByRole('textbox', { name: 'Model 1', exact: true }).fill('echo');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.getByRole('alert').filter({ hasText: 'Set requests or tokens per minute for this model' }).waitFor();
    await limits.getByRole('textbox', { name: 'Requests per minute, model 1', exact: true }).fill('10');
    // Above the owner's 1,000 tokens a minute: the server's 400, in words.
    await limits.getByRole('textbox', { name: 'Tokens per minute', exact: true }).fill('5000');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.getByRole('alert').filter({ hasText: "may not exceed its owner's" }).waitFor();
    await assertNoAxeViolations(page, 'the limits dialog with the server refusal', '[role="dialog"]');
    assert.equal(await keyLimits('carol-laptop'), null, 'nothing stored');
    await limits.getByRole('textbox', { name: 'Tokens per minute', exact: true }).fill('500');
    if (screenshots !== null) await page.screenshot({ path: join(screenshots, 'key-limits.png') });
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.waitFor({ state: 'detached' });
    await keyRow.getByText('500 tokens/min · echo: 10 requests/min').waitFor();
    const stored = await keyLimits('carol-laptop');
    assert.equal(stored?.tokens_per_minute, 500);
    assert.deepEqual(
      stored?.models?.map((entry) => ({ model: entry.model, requests_per_minute: entry.requests_per_minute })),
      [{ model: 'echo', requests_per_minute: 10 }],
    );
    await assertNoAxeViolations(page, 'the keys page with limits');
    assert.deepEqual(await clippedTexts(page), []);
    if (screenshots !== null) {
      // The table as it opens (the saved dialog's button had scrolled it sideways).
      await page.evaluate(`document.querySelectorAll('.mantine-ScrollArea-viewport').forEach((viewport) => { viewport.scrollLeft = 0; })`);
      await page.screenshot({ path: join(screenshots, 'keys-limits.png'), fullPage: true, style: '.mantine-Notifications-root { display: none !important; }' });
    }
  });

  it('sets limits on a new key in the create dialog, and removes them again', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = dialog('Create API key');
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('limited');
    assert.equal(await create.getByRole('radio', { name: 'Server default', exact: true }).isChecked(), true);
    await chooseMode(create, 'Set limits');
    await create.getByRole('textbox', { name: 'Requests per minute', exact: true }).fill('60');
    await create.getByRole('textbox', { name: 'Requests at once', exact: true }).fill('4');
    await create.getByRole('textbox', { name: 'Token budget', exact: true }).fill('5000000');
    await assertNoAxeViolations(page, 'the create key dialog with limits', '[role="dialog"]');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog('Your new API key').getByRole('button', { name: 'Done' }).click();
    const row = rowOf('API keys', 'limited');
    await row.getByText('60 requests/min · 4 at once · 5,000,000 tokens/month').waitFor();
    await row.getByText('Budget: 0 of 5,000,000 tokens this month (0 %)').waitFor();
    const stored = await keyLimits('limited');
    assert.equal(stored?.requests_per_minute, 60);
    assert.equal(stored?.max_concurrent_requests, 4);
    assert.deepEqual(stored?.token_budget, { tokens: 5_000_000, period: 'month' });

    await page.getByRole('button', { name: 'Limits of key limited' }).click();
    const limits = dialog('Limits of key limited');
    assert.equal(await limits.getByRole('textbox', { name: 'Requests per minute', exact: true }).inputValue(), '60', 'the dialog starts from the stored limits');
    await chooseMode(limits, 'None of its own');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.waitFor({ state: 'detached' });
    await row.getByText("None of its own (the owner's apply)").waitFor();
    assert.equal(await keyLimits('limited'), null);
  });

  it('can set limits with the keyboard alone, the focus returning to the button that opened the dialog', async () => {
    await page.goto(`${server.baseUrl}/users`);
    const opener = page.getByRole('button', { name: 'Limits of carol' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const limits = dialog('Limits of carol');
    await limits.waitFor();
    /** The focused radio's label, or "" when the focus is elsewhere. */
    const focusedRadio = () => page.evaluate(`document.activeElement?.type === 'radio' ? document.activeElement.labels?.[0]?.textContent ?? '' : ''`) as Promise<string>;
    for (let i = 0; i < 10 && (await focusedRadio()) === ''; i += 1) await page.keyboard.press('Tab');
    assert.equal(await focusedRadio(), 'Set limits', 'the mode choice starts on the current one');
    await page.keyboard.press('Tab');
    assert.equal(await focusedControl(page), 'textbox Requests per minute');
    await page.keyboard.type('120');
    await page.keyboard.press('Enter');
    await limits.waitFor({ state: 'detached' });
    await eventually(() => focusedControl(page), 'button Limits of carol');
    await rowOf('Users', 'carol').getByText('120 requests/min · 1,000 tokens/min · 2,000 tokens/day').waitFor();
    assert.equal((await userLimits('carol'))?.requests_per_minute, 120);
  });

  it("shows a key's owner its limits and use", async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    try {
      const carol = await other.newPage();
      carol.on('pageerror', (error) => problems.push(error.message));
      await carol.goto(`${server.baseUrl}/login`);
      await carol.getByRole('textbox', { name: 'Username', exact: true }).fill(CAROL.username);
      await carol.getByRole('textbox', { name: 'Password', exact: true }).fill(CAROL.password);
      await carol.getByRole('button', { name: 'Log in' }).click();
      await carol.getByTestId('signed-in-as').filter({ hasText: CAROL.username }).waitFor();
      await carol.goto(`${server.baseUrl}/keys`);
      const row = carol.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'carol-laptop' });
      await row.getByText('500 tokens/min · echo: 10 requests/min').waitFor();
      await row.getByText(`Today ${carolTokens} tokens, 1 request`, { exact: false }).waitFor();
      await assertNoAxeViolations(carol, "the keys page of a key's owner");
    } finally {
      await other.close();
    }
  });

  it('raised no script error, and no refused call but the limit above the owner', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual([...refusals].sort(), [`400 /v1/admin/keys/${carolKeyId}`, '401 /v1/auth/me', '401 /v1/auth/session/refresh']);
    assert.ok(carolId !== '');
  });
});
