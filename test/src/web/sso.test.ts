/**
 * Single sign-on in the web UI, in headless Chromium: a real OpenID provider (oidc-provider), a real
 * svc serving the bundled UI. "Sign in with …" → the provider's login form → back in svc, logged in
 * with the mapped permissions; logout ends the provider's session too (RP-initiated logout); a
 * replayed callback lands on the login page with the reason in words.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addAccount } from '../support/oidc-provider.js';
import { startSsoStack, type SsoStack } from '../support/sso.js';
import { launchChromium } from './browser.js';

const screenshots = process.env['SVC_UPDATE_SCREENSHOTS'] === '1' ? fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url)) : null;

describe('single sign-on in the web UI (Chromium)', () => {
  let stack: SsoStack;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  let callbackUrl = '';

  beforeAll(async () => {
    stack = await startSsoStack();
    addAccount(stack.provider, 'uma', ['ml-users']);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (request.url().includes('/v1/auth/oidc/callback')) callbackUrl = request.url();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const signInAtProvider = async (username: string) => {
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL(`${stack.provider.issuer}/interaction/**`);
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Continue' }).click();
  };

  it('Should offer "Sign in with …" beside the password form and sign in through the provider', async () => {
    await page.goto(`${stack.server.baseUrl}/login`);
    await page.getByRole('heading', { name: 'Log in to svc' }).waitFor();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    if (screenshots !== null) await page.screenshot({ path: join(screenshots, 'login-sso.png'), fullPage: true });
    await signInAtProvider('uma');
    await page.waitForURL(`${stack.server.baseUrl}/`);
    // uma holds models:read and keys:create: the keys page is hers, the users page is not.
    const nav = page.getByRole('navigation', { name: 'Pages' });
    await nav.getByRole('link', { name: 'API keys' }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Users' }).count(), 0);
    await page.getByText('uma').first().waitFor();
    assert.ok(callbackUrl.startsWith(`${stack.server.baseUrl}/v1/auth/oidc/callback?`), callbackUrl);
  });

  it('Should keep the session across a reload, like a password login', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys' }).waitFor();
  });

  it('Should log out of svc and of the provider (RP-initiated logout)', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.provider.issuer}/**`);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${stack.server.baseUrl}/login**`);
    await page.getByRole('heading', { name: 'Log in to svc' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Log in to svc' }).waitFor();
  });

  it('Should show a replayed callback as a refused sign-in, in words', async () => {
    await page.goto(callbackUrl);
    await page.waitForURL(`${stack.server.baseUrl}/login?sso_error=oidc_state_invalid`);
    await page.getByRole('alert').filter({ hasText: 'The sign-in expired, was already used or was started in another browser' }).waitFor();
  });

  it('Should ask the provider for the login again after the provider session ended', async () => {
    await signInAtProvider('uma');
    await page.waitForURL(`${stack.server.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
