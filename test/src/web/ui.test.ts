/**
 * The web UI end to end: a real `svc-local` process serving the bundled build, a fresh SVC_HOME, and
 * headless Chromium. One browser for the file; the steps run in order on one page, as a user would:
 * setup → login → launch and stop models → create a user → create a key (shown once) → reveal →
 * restrict it to a running model → change the security settings → get banned by failed attempts
 * (from the test process, "through a proxy") and unban → the audit center shows each of those
 * actions, exports them and refreshes by itself → reload keeps the session → logout ends it → a
 * user with only keys:create sees only the keys page; one with models:list but not models:write
 * sees launch and stop disabled with the reason.
 *
 * Screenshots of each page go to a temporary directory, or to docs/screenshots when
 * SVC_UPDATE_SCREENSHOTS=1 (`npm run screenshots`).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client, RateLimitError } from '@svc/sdk';
import { pollUntil, startServerProcess, type ServerProcess } from '@svc/server/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertNoAxeViolations, clippedTexts, focusedControl } from './accessibility.js';
import { launchChromium, watchPage } from './browser.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const ADMIN = { username: 'admin', password: 'a long admin passphrase for the ui test' };
const ALICE = { username: 'alice', password: 'alice has a long passphrase too' };
const UPSTREAM_SECRET = 'sk-upstream-secret-never-shown-again';
const ATTACKER_IP = '203.0.113.7';
const KEY_GUESSER_IP = '203.0.113.8';

describe('web UI (Chromium against svc-local)', () => {
  let home = '';
  let screenshots = '';
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  /** The API refusals the page met ("401 /v1/auth/session"): only those the steps provoke. */
  const refusals = new Set<string>();
  let keyPlaintext = '';

  // Toasts come and go; the screenshots show the page under them.
  const shoot = (name: string, fullPage = true) =>
    page.screenshot({ path: join(screenshots, `${name}.png`), fullPage, style: '.mantine-Notifications-root { display: none !important; }' });
  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  /** axe on the open dialog only (the page under it is checked on its own). */
  const axeDialog = (where: string) => assertNoAxeViolations(page, `the ${where} dialog`, '[role="dialog"]');
  const title = () => page.evaluate('document.title') as Promise<string>;
  /** Polls `probe` (bounded) until it answers `expected`, and fails with the last answer otherwise. */
  const eventually = async (probe: () => Promise<string>, expected: string) => {
    const seen = await pollUntil(probe, (current) => current === expected, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(seen[seen.length - 1], expected);
  };
  /** Waits for the document title (a page's code may still be loading: each page is its own chunk). */
  const waitForTitle = (expected: string) => eventually(title, expected);
  /** Waits for the keyboard focus to land on `control` ("button Create key"). */
  const waitForFocus = (control: string) => eventually(() => focusedControl(page), control);

  beforeAll(async () => {
    assert.ok(existsSync(join(repositoryRoot, 'web/dist/index.html')), 'the web UI is built (npm run build builds web/dist)');
    home = await mkdtemp(join(tmpdir(), 'svc-web-e2e-'));
    screenshots = process.env['SVC_UPDATE_SCREENSHOTS'] === '1' ? join(repositoryRoot, 'docs/screenshots') : join(home, 'screenshots');
    await mkdir(screenshots, { recursive: true });
    // 127.0.0.1 is trusted as a proxy, so the test process can fail attempts "from" another address
    // (X-Forwarded-For) and get that address banned while the browser keeps working.
    server = await startServerProcess({ SVC_HOME: home, SVC_TRUSTED_PROXIES: '127.0.0.1' });
    browser = await launchChromium();
    // Reduced motion: dialogs appear without a fade, so axe measures their final colours.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    watchPage(page, { problems, refusals });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('sends the first visitor to the setup page, which creates the administrator', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.waitForURL('**/setup');
    await page.getByRole('heading', { name: 'Set up svc' }).waitFor();
    await page.getByText('At least 15 characters').waitFor();
    await waitForTitle('Set up · svc');
    assert.equal(await focusedControl(page), 'textbox Username', 'the first field has the focus');
    await assertNoAxeViolations(page, 'the setup page');
    await shoot('setup');
    await page.getByRole('textbox', { name: 'Username', exact: true }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('too short');
    await page.getByRole('textbox', { name: 'Confirm password', exact: true }).fill('different');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByText('Use at least 15 characters').waitFor();
    await page.getByText('The passwords do not match').waitFor();
    // Field errors are announced (role=alert), marked invalid and tied to their field.
    const password = page.getByRole('textbox', { name: 'Password', exact: true });
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    const errorId = (await password.getAttribute('aria-describedby')) ?? '';
    assert.match((await page.locator(`[id="${errorId.split(' ')[0]}"]`).textContent()) ?? '', /Use at least 15 characters/);
    assert.equal(await page.getByRole('alert').filter({ hasText: 'The passwords do not match' }).count(), 1);
    await assertNoAxeViolations(page, 'the setup page with field errors');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await page.getByRole('textbox', { name: 'Confirm password', exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.waitForURL('**/login');
  });

  it('shows a refused login in words, then logs in and lands on the model launch page', async () => {
    await page.getByRole('heading', { name: 'Log in to svc' }).waitFor();
    await waitForTitle('Log in · svc');
    // Right after setup, the new administrator's name is filled in and the password has the focus.
    assert.equal(await page.getByRole('textbox', { name: 'Username', exact: true }).inputValue(), ADMIN.username);
    assert.equal(await focusedControl(page), 'textbox Password');
    await page.getByRole('textbox', { name: 'Username', exact: true }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not the right password at all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Incorrect username or password.' }).waitFor();
    await assertNoAxeViolations(page, 'the login page with a refusal');
    await shoot('login');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Models', exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    const nav = page.getByRole('navigation', { name: 'Pages' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Models', 'Playground', 'Users', 'API keys', 'Usage', 'Security', 'Audit']);
    await waitForTitle('Models · svc');
    // The administrator's overview: one user, no key, nothing running yet, an intact chain.
    await page.getByTestId('overview-users').filter({ hasText: '1 (1 enabled)' }).waitFor();
    await page.getByTestId('overview-keys').filter({ hasText: '0 (0 enabled)' }).waitFor();
    await page.getByTestId('overview-chain').filter({ hasText: 'Intact' }).waitFor();
    await assertNoAxeViolations(page, 'the home page');
  });

  it('lists the built-in model families and launches echo from its row', async () => {
    const families = page.getByRole('table', { name: 'Model families' });
    for (const name of ['echo', 'echo-system-first', 'hash-embedding']) {
      await families.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) }).waitFor();
    }
    await page.getByRole('table', { name: 'Running models' }).getByText('No model is running').waitFor();
    await page.getByRole('button', { name: 'Launch echo', exact: true }).click();
    const launch = dialog('Launch model');
    assert.equal(await launch.getByRole('combobox', { name: 'Model family' }).inputValue(), 'echo');
    await launch.getByRole('button', { name: 'Launch', exact: true }).click();
    await launch.waitFor({ state: 'detached' });
    const running = page.getByRole('table', { name: 'Running models' });
    await running.getByRole('row').filter({ hasText: 'echo' }).getByText('builtin').waitFor();
    // The model answers: launched for real, not just drawn.
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    const answer = await admin.inference.chatCompletion({ model: 'echo', messages: [{ role: 'user', content: 'hello from the ui test' }] });
    assert.equal(answer.choices[0]?.message.content, 'hello from the ui test');
    await admin.logout();
  });

  it('opens the launch dialog with its family list closed: Escape closes it at once and the focus returns to the button', async () => {
    const opener = page.getByRole('button', { name: 'Launch model', exact: true });
    await opener.click();
    const launch = dialog('Launch model');
    await launch.getByRole('combobox', { name: 'Model family' }).waitFor();
    assert.equal(await focusedControl(page), 'combobox Model family');
    assert.equal(await page.getByRole('listbox').count(), 0, 'the family list stays closed until asked for');
    await axeDialog('launch');
    await page.keyboard.press('Escape');
    await launch.waitFor({ state: 'detached' });
    await waitForFocus('button Launch model');
  });

  it('shows a refused launch in words (a uid already running)', async () => {
    await page.getByRole('button', { name: 'Launch model', exact: true }).click();
    const launch = dialog('Launch model');
    await launch.getByRole('combobox', { name: 'Model family' }).click();
    await page.getByRole('option', { name: 'echo-system-first', exact: true }).click();
    await launch.getByRole('textbox', { name: 'Model UID', exact: true }).fill('echo');
    await launch.getByRole('button', { name: 'Launch', exact: true }).click();
    await launch.getByRole('alert').filter({ hasText: 'A model with uid echo is already running' }).waitFor();
    await launch.getByRole('button', { name: 'Cancel' }).click();
    await launch.waitFor({ state: 'detached' });
  });

  it('launches an upstream model whose key is a password field and is never shown back', async () => {
    await page.getByRole('button', { name: 'Launch model', exact: true }).click();
    const launch = dialog('Launch model');
    await launch.getByText('Upstream server', { exact: true }).click();
    await launch.getByRole('combobox', { name: 'Model name' }).fill('llama3');
    await launch.getByRole('textbox', { name: 'Model UID', exact: true }).fill('llama-upstream');
    await launch.getByRole('textbox', { name: 'Upstream base URL' }).fill('http://127.0.0.1:9/v1');
    const secret = launch.getByLabel('Upstream API key');
    assert.equal(await secret.getAttribute('type'), 'password');
    await secret.fill(UPSTREAM_SECRET);
    await launch.getByRole('textbox', { name: 'Upstream model' }).fill('llama3:8b');
    await shoot('model-launch');
    await launch.getByRole('button', { name: 'Launch', exact: true }).click();
    await launch.waitFor({ state: 'detached' });
    const row = page.getByRole('table', { name: 'Running models' }).getByRole('row').filter({ hasText: 'llama-upstream' });
    await row.getByText('http://127.0.0.1:9/v1').waitFor();
    await row.getByText('key set').waitFor();
    assert.ok(!(await page.content()).includes(UPSTREAM_SECRET), 'the upstream key is not on the page');
    await shoot('models');
  });

  it('stops a model after a confirmation', async () => {
    await page.getByRole('button', { name: 'Stop model llama-upstream' }).click();
    const confirm = dialog('Stop model');
    await confirm.getByText('Stop the model llama-upstream?').waitFor();
    await axeDialog('stop confirmation');
    await confirm.getByRole('button', { name: 'Stop', exact: true }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Running models' }).getByRole('row').filter({ hasText: 'llama-upstream' }).waitFor({ state: 'detached' });
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    assert.deepEqual((await admin.models.list()).map((model) => model.model_uid), ['echo']);
    await admin.logout();
  });

  it('keeps the refresh token out of page scripts: an HttpOnly, SameSite=Strict cookie scoped to the session routes', async () => {
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'svc_session');
    assert.ok(session !== undefined);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/v1/auth/session');
    // Evaluated in the page (strings, as this file compiles without the DOM library).
    assert.equal(await page.evaluate('document.cookie'), '');
    assert.equal(await page.evaluate('localStorage.length + sessionStorage.length'), 0);
  });

  it('creates a user with a permission from the grouped picker, and shows refused actions disabled with the reason', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Users' }).click();
    await page.waitForURL('**/users');
    await page.getByRole('button', { name: 'Create user' }).click();
    const create = dialog('Create user');
    await create.getByRole('textbox', { name: 'Username', exact: true }).fill(ALICE.username);
    await create.getByRole('textbox', { name: 'Password', exact: true }).fill(ALICE.password);
    await create.getByRole('textbox', { name: 'Confirm password', exact: true }).fill(ALICE.password);
    await create.getByRole('group', { name: 'API keys' }).getByRole('checkbox', { name: 'keys:create' }).check();
    await axeDialog('create user');
    await create.getByRole('button', { name: 'Create' }).click();
    await create.waitFor({ state: 'detached' });
    await waitForFocus('button Create user');
    await waitForTitle('Users · svc');
    const row = page.getByRole('row').filter({ hasText: ALICE.username });
    await row.getByText('keys:create').waitFor();
    const ownDelete = page.getByRole('row').filter({ hasText: ADMIN.username }).getByRole('button', { name: `Delete ${ADMIN.username}` });
    assert.equal(await ownDelete.getAttribute('aria-disabled'), 'true');
    assert.equal(await ownDelete.getAttribute('title'), 'You cannot change your own account here');
    await assertNoAxeViolations(page, 'the users page');
    await shoot('users');
  });

  it('creates an API key and shows it exactly once, with a copy button', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = dialog('Create API key');
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('notebook');
    await axeDialog('create key');
    await create.getByRole('button', { name: 'Create' }).click();
    const shown = dialog('Your new API key');
    await axeDialog('shown-once key');
    keyPlaintext = (await shown.getByTestId('plaintext-key').textContent()) ?? '';
    assert.match(keyPlaintext, /^sk-svc-[0-9A-Za-z]{40,}$/);
    await shown.getByRole('button', { name: 'Copy key' }).waitFor();
    await shoot('key-created');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    // Create → shown once → Done: the focus is back on the button that started it.
    await waitForFocus('button Create key');
    await assertNoAxeViolations(page, 'the keys page');
    const row = page.getByRole('row').filter({ hasText: 'notebook' });
    const prefix = ((await row.getByRole('cell').nth(1).textContent()) ?? '').replace('…', '');
    assert.ok(keyPlaintext.startsWith(prefix) && prefix.length > 7, `prefix ${prefix}`);
    assert.ok(!(await page.content()).includes(keyPlaintext), 'the key is not on the page any more');
    const me = await new Client({ baseUrl: server.baseUrl, apiKey: keyPlaintext, maxRetries: 0 }).auth.me();
    assert.equal(me.username, ADMIN.username);
  });

  it('reveals the key again for a keys:manage holder', async () => {
    await page.getByRole('button', { name: 'Reveal key notebook' }).click();
    const revealed = dialog('Key notebook');
    assert.equal(await revealed.getByTestId('plaintext-key').textContent(), keyPlaintext);
    await axeDialog('reveal');
    await revealed.getByRole('button', { name: 'Close dialog' }).click();
    await revealed.waitFor({ state: 'detached' });
    await waitForFocus('button Reveal key notebook');
  });

  it('restricts the key to one model, picked from the running models', async () => {
    // A second model, so the restriction has something to hide.
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    await admin.models.launch({ model_name: 'hash-embedding', model_type: 'embedding' });
    await page.getByRole('button', { name: 'Models of key notebook' }).click();
    const models = dialog('Models of key notebook');
    await models.getByRole('radio', { name: 'Only these' }).check();
    await models.getByRole('combobox', { name: 'Model UID', exact: true }).click();
    assert.deepEqual((await page.getByRole('option').allTextContents()).sort(), ['echo', 'hash-embedding']);
    await axeDialog('key models');
    await shoot('key-models');
    await page.getByRole('option', { name: 'echo', exact: true }).click();
    assert.equal(await models.getByRole('combobox', { name: 'Model UID', exact: true }).inputValue(), 'echo');
    await models.getByRole('button', { name: 'Save' }).click();
    await models.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'notebook' }).getByRole('cell', { name: 'echo', exact: true }).waitFor();
    const [key] = await admin.keys.list();
    assert.ok(key !== undefined);
    assert.deepEqual(await admin.keys.getModelPermissions(key.id), [{ permission_type: 'model_id', permission_value: 'echo' }]);
    // The key now sees only that model.
    const restricted = new Client({ baseUrl: server.baseUrl, apiKey: keyPlaintext, maxRetries: 0 });
    assert.deepEqual((await restricted.models.list()).map((model) => model.model_uid), ['echo']);
    await admin.models.stop('hash-embedding');
    await admin.logout();
    await shoot('keys');
  });

  it('still takes a typed UID of a model that is not running, and a model type', async () => {
    await page.getByRole('button', { name: 'Models of key notebook' }).click();
    const models = dialog('Models of key notebook');
    await models.getByRole('button', { name: 'Add a model' }).click();
    await models.getByRole('combobox', { name: 'Model UID', exact: true }).nth(1).fill('qwen2.5-instruct');
    await models.getByRole('button', { name: 'Add a model' }).click();
    await models.getByRole('combobox', { name: 'Kind' }).nth(2).click();
    await page.getByRole('option', { name: 'Model type', exact: true }).click();
    await models.getByRole('combobox', { name: 'Model type' }).click();
    await page.getByRole('option', { name: 'Embedding', exact: true }).click();
    await models.getByRole('button', { name: 'Save' }).click();
    await models.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'notebook' }).getByText('echo, qwen2.5-instruct, any embedding').waitFor();
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    const key = (await admin.keys.list()).find((k) => k.name === 'notebook');
    assert.ok(key !== undefined);
    assert.deepEqual(await admin.keys.getModelPermissions(key.id), [
      { permission_type: 'model_id', permission_value: 'echo' },
      { permission_type: 'model_id', permission_value: 'qwen2.5-instruct' },
      { permission_type: 'model_type', permission_value: 'embedding' },
    ]);
    await admin.logout();
  });

  it('creates a key for another user when holding keys:manage and users:manage', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = dialog('Create API key');
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('for-alice');
    await create.getByRole('combobox', { name: 'Owner' }).click();
    await page.getByRole('option', { name: ALICE.username, exact: true }).click();
    await create.getByRole('button', { name: 'Create' }).click();
    await dialog('Your new API key').getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row').filter({ hasText: 'for-alice' }).getByRole('cell', { name: ALICE.username, exact: true }).waitFor();
  });

  it('creates a key that expires on a picked date and may do less than its owner, then lets it do everything again', async () => {
    const localDay = (offsetDays: number) => {
      const day = new Date(Date.now() + offsetDays * 86_400_000);
      return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    };
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = dialog('Create API key');
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('ci-bot');
    await create.getByRole('combobox', { name: 'Expires' }).click();
    await page.getByRole('option', { name: 'On a date…' }).click();
    const date = create.getByLabel('Expiry date');
    assert.equal(await date.getAttribute('type'), 'date', "the browser's own date picker");
    await date.fill(localDay(-1));
    await create.getByRole('radio', { name: 'Only the permissions picked below' }).check();
    await create.getByRole('button', { name: 'Create' }).click();
    await create.getByRole('alert').filter({ hasText: 'Pick a day in the future' }).waitFor();
    assert.equal(await date.getAttribute('aria-invalid'), 'true');
    await date.fill(localDay(10));
    await create.getByRole('button', { name: 'Create' }).click();
    await create.getByRole('alert').filter({ hasText: 'Pick at least one permission' }).waitFor();
    await create.getByRole('group', { name: 'Models' }).getByRole('checkbox', { name: 'models:read' }).check();
    await axeDialog('create key with a date and narrowed permissions');
    await create.getByRole('button', { name: 'Create' }).click();
    await dialog('Your new API key').getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: 'ci-bot' });
    await row.getByRole('cell', { name: 'models:read', exact: true }).waitFor();

    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    const stored = (await admin.keys.list()).find((key) => key.name === 'ci-bot');
    assert.ok(stored !== undefined && stored.expires_at !== null);
    assert.deepEqual(stored.permissions, ['models:read']);
    const [year, month, day] = localDay(10).split('-').map(Number) as [number, number, number];
    assert.equal(Date.parse(stored.expires_at), new Date(year, month - 1, day, 23, 59, 59, 999).getTime(), 'until the end of the picked day');

    await page.getByRole('button', { name: 'Permissions of key ci-bot' }).click();
    const edit = dialog('Permissions of key ci-bot');
    await axeDialog('key permissions');
    await edit.getByRole('radio', { name: 'Everything its owner may do' }).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.getByRole('cell', { name: "Owner's", exact: true }).waitFor();
    assert.equal((await admin.keys.list()).find((key) => key.name === 'ci-bot')?.permissions, null);
    await admin.logout();
  });

  it('changes the security settings, and shows a refused change in words', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Security' }).click();
    await page.waitForURL('**/security');
    const settings = page.getByRole('form', { name: 'Security settings' });
    const perIp = settings.getByRole('group', { name: 'Per client IP' });
    const perKey = settings.getByRole('group', { name: 'Per key or token, from one IP' });
    const perAccount = settings.getByRole('group', { name: 'Per account (login lockout)' });
    await perAccount.getByRole('textbox', { name: 'Longest wait (seconds)' }).fill('30');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('alert').filter({ hasText: 'login.max_wait_seconds must be at least login.wait_increment_seconds.' }).waitFor();
    await settings.getByRole('button', { name: 'Reset' }).click();
    await perIp.getByRole('textbox', { name: 'Failures before a ban' }).fill('3');
    await perKey.getByRole('textbox', { name: 'Failures before a ban' }).fill('2');
    await perAccount.getByRole('textbox', { name: 'Failures before a lockout' }).fill('3');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Security settings saved').waitFor();
    // The notification sits below the header, never over its buttons.
    const header = await page.locator('header').boundingBox();
    const toast = await page.locator('.mantine-Notification-root').filter({ hasText: 'Security settings saved' }).boundingBox();
    assert.ok(header !== null && toast !== null);
    assert.ok(toast.y >= header.y + header.height, `the notification (top ${toast.y}) is below the header (bottom ${header.y + header.height})`);
    assert.equal(await settings.getByRole('alert').count(), 0);
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    const stored = await admin.security.getSettings();
    assert.equal(stored.ip.max_failures, 3);
    assert.equal(stored.key.max_failures, 2);
    assert.equal(stored.login.failures_before_lockout, 3);
    assert.equal(stored.login.max_wait_seconds, 900, 'the refused value was not stored');
    await admin.logout();
  });

  it('shows the bans that failed attempts cause, counting down, and lifts them', async () => {
    // Failed logins against alice from one address: the address is banned and alice is locked.
    const attacker = new Client({ baseUrl: server.baseUrl, maxRetries: 0, headers: { 'x-forwarded-for': ATTACKER_IP } });
    for (let i = 0; i < 3; i += 1) await assert.rejects(attacker.login(ALICE.username, `wrong guess ${i}`));
    await assert.rejects(attacker.login(ALICE.username, ALICE.password), RateLimitError, 'the address is banned from logging in');
    // A guessed API key from another address: that (address, credential) pair is banned.
    const guesser = new Client({ baseUrl: server.baseUrl, maxRetries: 0, apiKey: `sk-svc-${'A'.repeat(49)}`, headers: { 'x-forwarded-for': KEY_GUESSER_IP } });
    for (let i = 0; i < 2; i += 1) await assert.rejects(guesser.auth.me());
    await assert.rejects(guesser.auth.me(), RateLimitError, 'the key is banned from that address');

    await page.getByRole('button', { name: 'Refresh' }).click();
    const ipRow = page.getByRole('table', { name: 'Banned IPs' }).getByRole('row').filter({ hasText: ATTACKER_IP });
    await page.getByRole('table', { name: 'Banned keys' }).getByRole('row').filter({ hasText: KEY_GUESSER_IP }).getByText(/^sha256:/).waitFor();
    await page.getByRole('table', { name: 'Locked accounts' }).getByRole('row').filter({ hasText: ALICE.username }).waitFor();
    // The time left counts down in the page.
    await assertNoAxeViolations(page, 'the security page with bans');
    const timeLeft = ipRow.getByRole('cell').nth(2);
    const before = await timeLeft.textContent();
    assert.match(before ?? '', /^\d+ (min|h|s)/);
    await pollUntil(() => timeLeft.textContent(), (now) => now !== before, { timeoutMs: 10_000, intervalMs: 250 });
    await shoot('security');

    await page.getByRole('button', { name: `Unban IP ${ATTACKER_IP}` }).click();
    await ipRow.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Banned IPs' }).getByText('No IP is banned.').waitFor();
    await attacker.health.status();

    await page.getByRole('button', { name: 'Unlock all accounts' }).click();
    const unlock = dialog('Unlock all accounts');
    await axeDialog('unlock all');
    await unlock.getByRole('button', { name: 'Unlock all' }).click();
    await unlock.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Locked accounts' }).getByText('No account is locked.').waitFor();

    await page.getByRole('button', { name: 'Unban all keys' }).click();
    const unbanKeys = dialog('Unban all keys');
    await unbanKeys.getByRole('button', { name: 'Unban all' }).click();
    await unbanKeys.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Banned keys' }).getByText('No key is banned.').waitFor();
    await assert.rejects(guesser.auth.me(), (error: unknown) => !(error instanceof RateLimitError), 'the guessed key is refused as invalid again, not as banned');

    // Alice logs in again (from the address that was banned), so the later steps can use her account.
    const alice = new Client({ baseUrl: server.baseUrl, maxRetries: 0, headers: { 'x-forwarded-for': ATTACKER_IP } });
    await alice.login(ALICE.username, ALICE.password);
    await alice.logout();
    // Back to limits no later step reaches: they fail on purpose from the browser's own address.
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    await admin.security.updateSettings({ ip: { max_failures: 1_000_000 }, key: { max_failures: 1_000_000 }, login: { failures_before_lockout: 1_000_000 } });
    await admin.logout();
  });

  it("counts the day's failed logins and bans in the administrator's overview, each linking to the records", async () => {
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    const failedLogins = (await admin.audit.search({ time_from: 'now-24h', status: 'login_failed', size: 1 })).total;
    const bans = (await admin.audit.search({ time_from: 'now-24h', event_type: 'ip_banned,key_banned,account_locked', size: 1 })).total;
    await admin.logout();
    assert.ok(failedLogins >= 3 && bans >= 3, `${failedLogins} failed logins, ${bans} bans`);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Models' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByTestId('overview-failed-logins').filter({ hasText: `Failed logins, 24 h${failedLogins}` }).waitFor();
    await page.getByTestId('overview-bans').filter({ hasText: `Bans and lockouts, 24 h${bans}` }).waitFor();
    await page.getByTestId('overview-users').filter({ hasText: '2 (2 enabled)' }).waitFor();
    await page.getByTestId('overview-models').filter({ hasText: 'Running models1' }).waitFor();
    await page.getByTestId('overview-failed-logins').getByRole('link', { name: 'Failed logins, 24 h' }).click();
    await page.waitForURL('**/audit?range=24h&status=login_failed');
    await page.getByTestId('audit-count').filter({ hasText: `Records 1–${failedLogins} of ${failedLogins}` }).waitFor();
    await page.getByTestId('overview-bans').waitFor({ state: 'detached' });
  });

  it('shows each of those actions in the audit center: filters, paging, export, auto-refresh', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL('**/audit');
    await page.getByTestId('chain-status').filter({ hasText: 'Hash chain intact' }).waitFor();
    const records = page.getByRole('table', { name: 'Audit records' });
    const count = page.getByTestId('audit-count');
    await count.filter({ hasText: /^Records 1–50 of \d+$/ }).waitFor();
    await waitForTitle('Audit · svc');
    await assertNoAxeViolations(page, 'the audit center');

    // The UI's own page-load calls are recorded, but hidden until the switch shows them.
    const totalOf = async () => Number(/of (\d+)$/.exec((await count.textContent()) ?? '')?.[1]);
    const withoutPageLoads = await totalOf();
    const pageLoads = page.getByRole('switch', { name: 'Show page loads' });
    await pageLoads.check();
    const withPageLoads = await pollUntil(totalOf, (total) => total > withoutPageLoads, { timeoutMs: 10_000, intervalMs: 100 });
    assert.ok((withPageLoads[withPageLoads.length - 1] ?? 0) > withoutPageLoads, 'showing page loads shows more records');
    await pageLoads.uncheck();
    // Hidden again: fewer than with them shown, although the searches made meanwhile (and records of
    // the page's own calls still being flushed when the first total was read) add a few of their own.
    const shown = withPageLoads[withPageLoads.length - 1] ?? 0;
    const hiddenAgain = await pollUntil(totalOf, (total) => total < shown, { timeoutMs: 10_000, intervalMs: 100 });
    assert.ok((hiddenAgain[hiddenAgain.length - 1] ?? Infinity) < shown, 'hidden again');

    // Paging: 25 a page, then the second page.
    await page.getByRole('combobox', { name: 'Records per page' }).click();
    await page.getByRole('option', { name: '25 / page' }).click();
    await count.filter({ hasText: /^Records 1–25 of \d+$/ }).waitFor();
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await count.filter({ hasText: /^Records 26–/ }).waitFor();

    // A row reached with the keyboard is scrolled clear of the fixed header: put one row's button
    // just under the header, focus the next row's, and Shift+Tab back to it.
    await page.evaluate(`(() => {
      const buttons = [...document.querySelectorAll('table button')].filter((button) => button.textContent === 'Details');
      const header = document.querySelector('header').getBoundingClientRect();
      window.scrollBy(0, buttons[12].getBoundingClientRect().top - header.top - 10);
      buttons[13].focus({ preventScroll: true });
    })()`);
    await page.keyboard.press('Shift+Tab');
    const clearOfHeader = (await page.evaluate(`document.activeElement.getBoundingClientRect().top - document.querySelector('header').getBoundingClientRect().bottom`)) as number;
    assert.ok(clearOfHeader >= 0, `the focused row's button is below the header (${clearOfHeader} px)`);
    await page.evaluate('window.scrollTo(0, 0)');

    // A custom range: one starting tomorrow is refused in words; the day before yesterday holds
    // nothing (the server started today); then back to the last hour.
    const localDay = (offsetDays: number) => {
      const day = new Date(Date.now() + offsetDays * 86_400_000);
      return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}T00:00`;
    };
    await page.getByText('Custom', { exact: true }).click();
    await page.getByLabel('From', { exact: true }).fill(localDay(1));
    await page.getByRole('alert').filter({ hasText: 'The range starts after it ends' }).waitFor();
    await count.filter({ hasText: 'No result' }).waitFor();
    await page.getByLabel('From', { exact: true }).fill(localDay(-2));
    await page.getByLabel('To', { exact: true }).fill(localDay(-1));
    await count.filter({ hasText: 'No matching record' }).waitFor();
    await records.getByText('No record matches these filters in this time range.').waitFor();
    await page.getByText('1 h', { exact: true }).click();
    await count.filter({ hasText: /^Records 1–25 of \d+$/ }).waitFor();

    // Each action of the steps above, picked from the filter choices.
    const pick = async (filter: string, values: string[]) => {
      const input = page.getByRole('combobox', { name: filter, exact: true });
      for (const value of values) {
        await input.click();
        await input.fill(value);
        await page.getByRole('option', { name: value, exact: true }).click();
      }
      await input.press('Escape');
    };
    const actions = ['createUser', 'createApiKey', 'revealApiKey', 'setApiKeyModelPermissions', 'launchModel', 'stopModel', 'updateSecuritySettings', 'unbanIp', 'unlockAllAccounts', 'unbanAllKeys'];
    await pick('Action', actions);
    await count.filter({ hasText: /^Records 1–/ }).waitFor();
    for (const action of actions) await records.getByRole('row').filter({ hasText: action }).first().waitFor();
    // Each action reads as words, with the operation id beside them and in the details.
    const created = records.getByRole('row').filter({ hasText: 'Created a user' }).filter({ hasText: 'createUser' }).filter({ hasText: 'success' }).first();
    await created.waitFor();
    await records.getByRole('row').filter({ hasText: "Changed a key's model restrictions" }).first().waitFor();
    await created.getByRole('button', { name: /^Details of record/ }).click();
    const details = page.getByRole('dialog', { name: /^Audit record \d+$/ });
    await details.getByText('Created a user — operation createUser').waitFor();
    await axeDialog('audit record');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });
    const afterDetails = await pollUntil(() => focusedControl(page), (focused) => focused.startsWith('button Details of record'), { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(afterDetails[afterDetails.length - 1] ?? '', /^button Details of record \d+$/, 'the focus is back on the Details button');
    await page.getByRole('button', { name: 'Clear filters' }).click();

    // The security events, by event type.
    await pick('Event', ['ip_banned', 'key_banned', 'account_locked', 'ip_unbanned', 'key_unbanned', 'account_unlocked']);
    await records.getByRole('row').filter({ hasText: 'ip_banned' }).filter({ hasText: ATTACKER_IP }).first().waitFor();
    await records.getByRole('row').filter({ hasText: 'key_banned' }).filter({ hasText: KEY_GUESSER_IP }).first().waitFor();
    await records.getByRole('row').filter({ hasText: 'account_locked' }).first().waitFor();
    await records.getByRole('row').filter({ hasText: 'ip_unbanned' }).first().waitFor();
    await records.getByRole('row').filter({ hasText: 'account_unlocked' }).first().waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();

    // The failed logins, by status and client IP (typed).
    await pick('Status', ['login_failed']);
    await page.getByRole('combobox', { name: 'Client IP', exact: true }).fill(ATTACKER_IP);
    await count.filter({ hasText: /^Records 1–3 of 3$/ }).waitFor();
    assert.equal(await records.getByRole('row').filter({ hasText: ALICE.username }).count(), 3);
    await page.getByRole('combobox', { name: 'Client IP', exact: true }).press('Escape');
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot('audit');

    // Export what is shown, as CSV and as JSON Lines, through the download link the page makes.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.match(csv.suggestedFilename(), /^svc-audit-.*\.csv$/);
    const csvText = await readFile((await csv.path()) as string, 'utf8');
    const csvLines = csvText.trim().split('\r\n');
    assert.equal(csvLines.length, 4, 'a header and the three records');
    assert.match(csvLines[0] ?? '', /event_type/);
    assert.ok(csvLines.slice(1).every((line) => line.includes('login_failed') && line.includes(ATTACKER_IP)));
    const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON Lines' }).click()]);
    const exported = (await readFile((await jsonl.path()) as string, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { status: string; user: string });
    assert.deepEqual(exported.map((record) => [record.status, record.user]), Array.from({ length: 3 }, () => ['login_failed', ALICE.username]));
    await page.getByRole('link', { name: /^Download svc-audit-.*\.jsonl$/ }).waitFor();

    // Auto-refresh shows a new failure without a click.
    await page.getByRole('switch', { name: 'Auto-refresh (10 s)' }).check();
    const attacker = new Client({ baseUrl: server.baseUrl, maxRetries: 0, headers: { 'x-forwarded-for': ATTACKER_IP } });
    await assert.rejects(attacker.login('mallory', 'not a real account'));
    // An unknown username is recorded as a keyed marker, never as the typed text.
    await records.getByRole('row').filter({ hasText: 'unknown-user:' }).first().waitFor({ timeout: 30_000 });
    assert.equal(await records.getByRole('row').filter({ hasText: 'mallory' }).count(), 0);
    await page.getByRole('switch', { name: 'Auto-refresh (10 s)' }).uncheck();

    // At phone width the filters stack and the table scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('chain-status').waitFor();
    await count.filter({ hasText: /^Records 1–/ }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'nothing wider than the screen but the table, which scrolls inside');
    await page.locator('button[data-loading]').first().waitFor({ state: 'detached' });
    await shoot('audit-phone', false);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 300_000);

  it('keeps the session across a reload (the cookie resumes it; the access token lived in memory only)', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Audit center' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/audit');
    await page.getByTestId('signed-in-as').filter({ hasText: ADMIN.username }).waitFor();
  });

  it('cuts no table cell or status badge short at 1280 px, 1920 px and phone width', async () => {
    const tablePages = [
      { path: '/', table: 'Running models' },
      { path: '/users', table: 'Users' },
      { path: '/keys', table: 'API keys' },
      { path: '/security', table: 'Banned IPs' },
      { path: '/audit', table: 'Audit records' },
    ];
    for (const width of [1280, 1920, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const { path, table } of tablePages) {
        await page.goto(`${server.baseUrl}${path}`);
        await page.getByRole('table', { name: table }).getByRole('row').nth(1).waitFor();
        await page.locator('text=Loading…').first().waitFor({ state: 'detached' });
        assert.deepEqual(await clippedTexts(page), [], `nothing clipped on ${path} at ${width} px`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 300_000);

  it("shows the UI's not-found page at an unknown path, while API paths still answer JSON", async () => {
    const response = await page.goto(`${server.baseUrl}/no/such/page`);
    assert.equal(response?.status(), 404);
    await page.getByRole('alert').filter({ hasText: 'No such page' }).waitFor();
    await waitForTitle('Page not found · svc');
    await page.getByTestId('signed-in-as').filter({ hasText: ADMIN.username }).waitFor();
    await assertNoAxeViolations(page, 'the not-found page');
    const api = await fetch(`${server.baseUrl}/v1/no/such/route`, { headers: { accept: 'text/html' } });
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'not_found');
  });

  it('chats with a model in the playground, the answer streamed', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Playground' }).click();
    await page.waitForURL('**/playground');
    await waitForTitle('Playground · svc');
    const model = page.getByRole('combobox', { name: 'Model' });
    await model.fill('echo');
    await page.getByRole('textbox', { name: 'Message' }).fill('hello from the playground');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const conversation = page.getByTestId('conversation');
    await conversation.locator('[data-role="assistant"]').filter({ hasText: 'hello from the playground' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Answer complete' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), '', 'the message was sent');
    // A model that is not running is refused in words, and the message stays to be sent again.
    await model.fill('not-running');
    await page.getByRole('textbox', { name: 'Message' }).fill('anyone there?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: 'The model did not answer' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'anyone there?');
    await assertNoAxeViolations(page, 'the playground');
    await shoot('playground');
  });

  it('logs out: the server revokes the session and the cookie is gone, so a reload stays logged out', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')?.value;
    assert.ok(cookie !== undefined);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    assert.equal((await context.cookies()).find((c) => c.name === 'svc_session'), undefined);
    const replay = await fetch(`${server.baseUrl}/v1/auth/session/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_session=${cookie}` },
      body: '{}',
    });
    assert.equal(replay.status, 401, 'the old cookie no longer refreshes');
    await page.reload();
    await page.getByRole('heading', { name: 'Log in to svc' }).waitFor();
  });

  it('shows a user holding only keys:create just the keys page (and their own usage), and a clear message on a direct link elsewhere', async () => {
    await page.getByRole('textbox', { name: 'Username', exact: true }).fill(ALICE.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/keys');
    const nav = page.getByRole('navigation', { name: 'Pages' });
    // Usage needs no permission: everyone sees their own.
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['API keys', 'Usage']);
    await page.getByRole('row').filter({ hasText: 'for-alice' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = dialog('Create API key');
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('alice-laptop');
    await create.getByRole('button', { name: 'Create' }).click();
    await dialog('Your new API key').getByRole('button', { name: 'Done' }).click();
    for (const action of ['Reveal key alice-laptop', 'Models of key alice-laptop']) {
      const button = page.getByRole('button', { name: action });
      assert.equal(await button.getAttribute('aria-disabled'), 'true', action);
      assert.equal(await button.getAttribute('title'), 'Needs the keys:manage permission', action);
    }
    assert.equal(await page.getByRole('row').filter({ hasText: 'notebook' }).count(), 0, "the admin's key is not listed");
    await page.goto(`${server.baseUrl}/users`);
    await page.getByRole('alert').filter({ hasText: 'You cannot open Users' }).waitFor();
    await page.getByText('needs the permission users:manage').waitFor();
    await waitForTitle('Users · svc');
    await assertNoAxeViolations(page, 'the forbidden page');
    await shoot('forbidden');
  });

  it("changes one's own password and keeps the session (a new cookie) across a reload", async () => {
    await page.goto(`${server.baseUrl}/keys`);
    await page.getByRole('button', { name: 'Password', exact: true }).click();
    const change = dialog('Change your password');
    await change.getByRole('textbox', { name: 'Current password', exact: true }).fill('not alice at all, clearly');
    await change.getByRole('textbox', { name: 'New password', exact: true }).fill(`${ALICE.password} renewed`);
    await change.getByRole('textbox', { name: 'Confirm new password', exact: true }).fill(`${ALICE.password} renewed`);
    await change.getByRole('button', { name: 'Change password' }).click();
    await change.getByRole('alert').filter({ hasText: 'Current password is incorrect.' }).waitFor();
    await axeDialog('own password');
    await change.getByRole('textbox', { name: 'Current password', exact: true }).fill(ALICE.password);
    await change.getByRole('button', { name: 'Change password' }).click();
    await change.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('signed-in-as').filter({ hasText: ALICE.username }).waitFor();
    const oldPassword = await new Client({ baseUrl: server.baseUrl, maxRetries: 0 }).login(ALICE.username, ALICE.password).catch((error: unknown) => error);
    assert.ok(oldPassword instanceof Error && /Incorrect username or password/.test(oldPassword.message));
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.baseUrl}/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await shoot('keys-phone');
    const burger = page.getByRole('button', { name: 'Toggle navigation' });
    const nav = page.locator('#app-navigation');
    /** Where eight presses of Tab after the burger land. */
    const tabStopsAfterBurger = async () => {
      await burger.focus();
      const stops: string[] = [];
      for (let i = 0; i < 8; i += 1) {
        await page.keyboard.press('Tab');
        stops.push(await focusedControl(page));
      }
      return stops;
    };
    // Folded away, the navigation is out of the tab order (inert) and the burger says so.
    assert.equal(await burger.getAttribute('aria-expanded'), 'false');
    assert.equal(await nav.getAttribute('inert'), '');
    assert.ok(!(await tabStopsAfterBurger()).includes('link API keys'), 'the folded navigation takes no focus');
    await assertNoAxeViolations(page, 'the keys page at phone width');
    await burger.click();
    assert.equal(await burger.getAttribute('aria-expanded'), 'true');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys' }).waitFor({ state: 'visible' });
    assert.equal(await nav.getAttribute('inert'), null);
    assert.ok((await tabStopsAfterBurger()).includes('link API keys'), 'the open navigation is in the tab order');
    await burger.click();
    assert.equal(await nav.getAttribute('inert'), '');
  });

  it('shows launch and stop disabled, with the reason, to a user who may list models but not launch them', async () => {
    const admin = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await admin.login(ADMIN.username, ADMIN.password);
    await admin.users.create({ username: 'viewer', password: ALICE.password, permissions: ['models:list'] });
    await admin.logout();
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const viewer = await other.newPage();
      await viewer.goto(`${server.baseUrl}/login`);
      await viewer.getByRole('textbox', { name: 'Username', exact: true }).fill('viewer');
      await viewer.getByRole('textbox', { name: 'Password', exact: true }).fill(ALICE.password);
      await viewer.getByRole('button', { name: 'Log in' }).click();
      await viewer.getByRole('heading', { name: 'Models', exact: true }).waitFor();
      assert.deepEqual(await viewer.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents(), ['Models', 'Usage']);
      await viewer.getByRole('table', { name: 'Running models' }).getByRole('cell', { name: 'echo', exact: true }).first().waitFor();
      const reason = 'Launching and stopping models needs the models:write permission';
      for (const action of ['Launch model', 'Launch echo', 'Stop model echo']) {
        const button = viewer.getByRole('button', { name: action, exact: true });
        assert.equal(await button.getAttribute('aria-disabled'), 'true', action);
        assert.equal(await button.getAttribute('title'), reason, action);
      }
      await viewer.getByRole('button', { name: 'Stop model echo', exact: true }).click({ force: true });
      assert.equal(await viewer.getByRole('dialog').count(), 0, 'a refused action opens nothing');
    } finally {
      await other.close();
    }
  });

  it('opens the app directly, without login or logout, when authentication is switched off', async () => {
    const open = await startServerProcess({ SVC_HOME: join(home, 'auth-off'), SVC_AUTH_ADVANCED: 'false' });
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const anonymous = await other.newPage();
      // A fresh database still needs its administrator first.
      const client = new Client({ baseUrl: open.baseUrl, maxRetries: 0 });
      await client.setup.createAdmin(ADMIN);
      await anonymous.goto(`${open.baseUrl}/`);
      await anonymous.getByRole('heading', { name: 'Models', exact: true }).waitFor();
      await anonymous.getByTestId('signed-in-as').filter({ hasText: 'anonymous' }).waitFor();
      assert.equal(await anonymous.getByRole('button', { name: 'Log out' }).count(), 0);
    } finally {
      await other.close();
      await open.stop();
    }
  });

  it('can be used with the keyboard alone: login, navigation and key creation, the focus landing where the next step starts', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const keyboard = await other.newPage();
      keyboard.on('pageerror', (error) => problems.push(error.message));
      const focused = () => focusedControl(keyboard);
      const mainHasFocus = () => keyboard.evaluate('document.activeElement?.id === "main-content"') as Promise<boolean>;
      /** Presses Tab until `control` has the focus (at most 20 times), as a keyboard user would. */
      const tabTo = async (control: string) => {
        for (let i = 0; i < 20 && (await focused()) !== control; i += 1) await keyboard.keyboard.press('Tab');
        assert.equal(await focused(), control);
      };
      await keyboard.goto(`${server.baseUrl}/login`);
      await keyboard.getByRole('heading', { name: 'Log in to svc' }).waitFor();
      assert.equal(await focused(), 'textbox Username', 'the login page starts in its first field');
      await keyboard.keyboard.type(ADMIN.username);
      await keyboard.keyboard.press('Tab');
      assert.equal(await focused(), 'textbox Password');
      await keyboard.keyboard.type(ADMIN.password);
      await keyboard.keyboard.press('Enter');
      await keyboard.getByRole('heading', { name: 'Models', exact: true }).waitFor();

      // The first stop is the skip link, which leads into the page's content.
      await keyboard.keyboard.press('Tab');
      assert.equal(await focused(), 'link Skip to content');
      await keyboard.keyboard.press('Enter');
      assert.equal(await mainHasFocus(), true, 'the skip link moves the focus to the content');

      // Through the header to the navigation; following a link puts the focus on the new page's content.
      await keyboard.evaluate('document.activeElement.blur()');
      await tabTo('link API keys');
      await keyboard.keyboard.press('Enter');
      await keyboard.waitForURL('**/keys');
      await keyboard.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
      assert.equal(await mainHasFocus(), true, 'after a navigation the focus is on the content');
      await eventually(() => keyboard.evaluate('document.title') as Promise<string>, 'API keys · svc');

      // Create a key: the dialog opens on its first field, Enter submits, the key is shown with the
      // copy button focused, and Escape returns the focus to "Create key".
      await keyboard.keyboard.press('Tab');
      assert.equal(await focused(), 'button Create key');
      await keyboard.keyboard.press('Enter');
      await keyboard.getByRole('dialog', { name: 'Create API key' }).waitFor();
      assert.equal(await focused(), 'textbox Name');
      await keyboard.keyboard.type('typed-by-keyboard');
      await keyboard.keyboard.press('Enter');
      const shown = keyboard.getByRole('dialog', { name: 'Your new API key' });
      await shown.waitFor();
      await eventually(focused, 'button Copy key');
      await keyboard.keyboard.press('Escape');
      await shown.waitFor({ state: 'detached' });
      await eventually(focused, 'button Create key');
      await keyboard.getByRole('row').filter({ hasText: 'typed-by-keyboard' }).waitFor();
    } finally {
      await other.close();
    }
  });

  it('shows a readable page for a 429 (what happened, how long, what an admin can do), never raw JSON, while the live session behind the same address keeps working', async () => {
    // Another person behind a shared address that typos have banned.
    const shared = '198.51.100.77';
    const client = new Client({ baseUrl: server.baseUrl, maxRetries: 0, headers: { 'x-forwarded-for': shared } });
    const adminClient = new Client({ baseUrl: server.baseUrl, maxRetries: 0 });
    await adminClient.login(ADMIN.username, ADMIN.password);
    const before = await adminClient.security.getSettings();
    await adminClient.security.updateSettings({ ip: { max_failures: 3 } });
    for (let i = 0; i < 3; i += 1) await assert.rejects(client.login('someone-mistyped', `typo number ${i}`));
    await assert.rejects(client.login(ADMIN.username, ADMIN.password), RateLimitError);
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { 'x-forwarded-for': shared } });
    try {
      const banned = await other.newPage();
      await banned.goto(`${server.baseUrl}/login`);
      await banned.getByRole('heading', { name: 'Log in to svc' }).waitFor();
      await banned.getByRole('textbox', { name: 'Username', exact: true }).fill(ADMIN.username);
      await banned.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
      await banned.getByRole('button', { name: 'Log in' }).click();
      const notice = banned.getByTestId('rate-limited');
      await notice.getByText('Too many failed attempts').waitFor();
      const text = await notice.innerText();
      assert.match(text, /too many failed sign-in attempts from your network address/);
      // The hour-long ban: "1 h" when the page asks within the ban's first second, else "59 min 59 s" or so.
      assert.match(text, /Try again in (1 h|5\d min( \d+ s)?) \(at /);
      assert.match(text, /svc-unban lift --ip/);
      assert.match(text, /Security page/);
      assert.ok(!(await banned.content()).includes('"detail"'), 'no raw JSON on the page');
      await banned.screenshot({ path: join(screenshots, 'rate-limited.png'), fullPage: true });
    } finally {
      await other.close();
      await adminClient.security.unbanIp(shared);
      await adminClient.security.updateSettings({ ip: before.ip });
    }
  });

  it('raised no script error and no Content-Security-Policy violation on any page', () => {
    assert.deepEqual(problems, []);
    // The refusals the steps provoke on purpose, and nothing else.
    assert.deepEqual([...refusals].sort(), [
      '400 /v1/admin/security/rate-limit', // a longest wait shorter than the wait increment
      '401 /v1/auth/me', // the app asking who is logged in after the logout
      '401 /v1/auth/session', // the wrong password
      '401 /v1/auth/session/refresh', // no session cookie yet (first visit, after logout)
      '403 /v1/auth/me/password', // alice's wrong current password
      '404 /no/such/page', // the page at an unknown path (the app shows its not-found page)
      '404 /v1/chat/completions', // the playground asking a model that is not running
      '409 /v1/models', // a uid already running
    ]);
  });
});
