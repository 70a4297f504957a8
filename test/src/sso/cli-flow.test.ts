/**
 * `svc login --sso` end to end: the real `svc` binary in a child process, a real svc server and a
 * real OpenID provider; the browser's part is played by a cookie-keeping user agent that opens the
 * URL the CLI prints and follows the redirects back to the CLI's loopback address.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { entryPoint, nodeArguments } from '@svc/server/testing';
import { addAccount } from '../support/oidc-provider.js';
import { startSsoStack, type SsoStack } from '../support/sso.js';
import { UserAgent } from '../support/user-agent.js';

const svcBinary = entryPoint('../../../cli/src/bin/svc', import.meta.url);

let stack: SsoStack;
let home: string;
beforeAll(async () => {
  stack = await startSsoStack();
  home = await mkdtemp(join(tmpdir(), 'svc-sso-cli-'));
});
afterAll(async () => {
  await stack?.close();
  await rm(home, { recursive: true, force: true });
});

/** A running `svc` whose output is collected; `printed(pattern)` resolves when stderr matches. */
function startSvc(args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, nodeArguments(svcBinary, args), {
    env: { PATH: process.env['PATH'] ?? '', SVC_HOME: home, SVC_ENDPOINT: stack.server.baseUrl },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  const listeners: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const listener of listeners.splice(0)) listener();
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return {
    exited,
    /** Resolves with the first match of `pattern` in stderr; rejects if the process ends first. */
    printed(pattern: RegExp): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (match !== null) return resolve(match);
          listeners.push(check);
        };
        void exited.then(() => reject(new Error(`svc ended before printing ${pattern}: ${stderr}`)));
        check();
      });
    },
  };
}

/** Plays the browser: opens `url`, signs in at the provider as `username`, follows everything back. */
async function completeInBrowser(url: string, username: string) {
  const agent = new UserAgent();
  const hops = await agent.follow(url);
  const form = hops.at(-1);
  assert.ok(form !== undefined && form.url.includes('/interaction/'), JSON.stringify(form));
  const submitted = await agent.request(`${form.url}/login`, { method: 'POST', form: { username } });
  return agent.follow(submitted.location ?? '');
}

describe('svc login --sso', () => {
  it('Should sign in through the provider with a loopback redirect and keep the session like a password login', async () => {
    addAccount(stack.provider, 'cli-user', ['ml-users']);
    const svc = startSvc(['login', '--sso', '--no-browser']);
    const [url] = await svc.printed(/http:\/\/\S+\/v1\/auth\/oidc\/login\?\S+/);
    const parsed = new URL(url);
    assert.match(parsed.searchParams.get('cli_redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const hops = await completeInBrowser(url, 'cli-user');
    const last = hops.at(-1);
    assert.equal(last?.status, 200, JSON.stringify(last));
    assert.match(last?.body ?? '', /Signed in/);
    assert.ok(last?.url.startsWith('http://127.0.0.1:') && last.url.includes('/callback?code=svc_oc_'), last?.url);
    const result = await svc.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Logged in to .* as cli-user \(single sign-on\)/);
    const sessions = JSON.parse(await readFile(join(home, 'cli', 'sessions.json'), 'utf8')) as { sessions: Record<string, { username: string; refreshToken: string }> };
    const session = sessions.sessions[stack.server.baseUrl];
    assert.equal(session?.username, 'cli-user');
    assert.match(session?.refreshToken ?? '', /^svc_rt_/);

    const whoami = startSvc(['whoami', '--json']);
    const answer = await whoami.exited;
    assert.equal(answer.code, 0, answer.stderr);
    const me = JSON.parse(answer.stdout) as { username: string; permissions: string[]; source: string };
    assert.equal(me.username, 'cli-user');
    assert.equal(me.source, 'oidc');
    assert.deepEqual(me.permissions, ['models:read', 'keys:create']);
  });

  it('Should redeem the loopback code once, and only with the CLI\'s verifier', async () => {
    addAccount(stack.provider, 'cli-thief', ['ml-users']);
    const svc = startSvc(['login', '--sso', '--no-browser']);
    const [url] = await svc.printed(/http:\/\/\S+\/v1\/auth\/oidc\/login\?\S+/);
    const hops = await completeInBrowser(url, 'cli-thief');
    assert.equal((await svc.exited).code, 0);
    const code = new URL(hops.at(-1)?.url ?? '').searchParams.get('code') ?? '';
    // Redeemed already by the CLI; a stolen copy with any verifier is refused.
    const replay = await stack.server.request('POST', '/v1/auth/oidc/token', { body: { code, code_verifier: 'x'.repeat(43) } });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error.code, 'oidc_code_invalid');
  });

  it('Should exit non-zero with one readable line when the sign-in is refused', async () => {
    const svc = startSvc(['login', '--sso', '--no-browser']);
    const [url] = await svc.printed(/http:\/\/\S+\/v1\/auth\/oidc\/login\?\S+/);
    addAccount(stack.provider, 'cli-victim', ['ml-users']);
    stack.provider.rewriteIdTokens = async (idToken) => `${idToken.slice(0, -4)}AAAA`;
    try {
      await completeInBrowser(url, 'cli-victim');
    } finally {
      stack.provider.rewriteIdTokens = null;
    }
    const result = await svc.exited;
    assert.equal(result.code, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.match(lines.at(-1) ?? '', /^svc: Single sign-on failed: the ID token is not valid \(ERR_JWS_SIGNATURE_VERIFICATION_FAILED\) \(oidc_login_failed\)$/);
  });

  it('Should refuse a loopback address that is not one', async () => {
    const response = await stack.server.request('GET', `/v1/auth/oidc/login?cli_redirect_uri=${encodeURIComponent('https://attacker.example/cb')}&cli_code_challenge=${'a'.repeat(43)}`);
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'invalid_request');
  });
});

/** The fields and action of the form `id` in `html` (the first form when `id` is null). */
function formOf(html: string, id: string | null): { action: string; fields: Record<string, string> } {
  const form = new RegExp(`<form[^>]*${id === null ? '' : `id="${id.replace('.', '\\.')}"`}[^>]*>([\\s\\S]*?)</form>`).exec(html);
  assert.ok(form !== null, `no form ${id} in ${html.replace(/<style>[\s\S]*<\/style>/, "").slice(0, 1500)}`);
  const action = /action="([^"]*)"/.exec(form[0])?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const input of form[1]?.matchAll(/<input[^>]*>/g) ?? []) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
    if (name !== undefined) fields[name] = value;
  }
  return { action, fields };
}

describe('svc login --sso --device', () => {
  it('Should sign in with a code entered at the provider, while the CLI polls', async () => {
    addAccount(stack.provider, 'device-user', ['ml-admins']);
    const svc = startSvc(['login', '--sso', '--device']);
    const [, complete] = await svc.printed(/or open: (\S+)/);
    assert.ok(complete !== undefined);
    const agent = new UserAgent();
    // The provider's page with the code filled in (a form its script submits), then its confirmation page.
    const entry = await agent.request(complete);
    assert.equal(entry.status, 200, entry.body.slice(0, 200));
    const input = formOf(entry.body, null);
    assert.equal(input.fields['user_code'], new URL(complete).searchParams.get('user_code'));
    const confirm = await agent.request(new URL(input.action, complete).href, { method: 'POST', form: input.fields });
    assert.equal(confirm.status, 200, confirm.body.slice(0, 200));
    const { action, fields } = formOf(confirm.body, 'op.deviceConfirmForm');
    const submitted = await agent.request(new URL(action, complete).href, { method: 'POST', form: fields });
    const toLogin = await agent.follow(submitted.location ?? '');
    const form = toLogin.at(-1);
    assert.ok(form !== undefined && form.url.includes('/interaction/'), JSON.stringify(form));
    const loggedIn = await agent.request(`${form.url}/login`, { method: 'POST', form: { username: 'device-user' } });
    const done = await agent.follow(loggedIn.location ?? '');
    assert.equal(done.at(-1)?.status, 200);
    const result = await svc.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Logged in to .* as device-user \(single sign-on\)/);
    const whoami = await startSvc(['whoami', '--json']).exited;
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.deepEqual((JSON.parse(whoami.stdout) as { permissions: string[] }).permissions, ['admin']);
  });

  it('Should answer a poll before approval with oidc_authorization_pending', async () => {
    const started = await stack.server.request('POST', '/v1/auth/oidc/device', { body: {} });
    assert.equal(started.status, 200, started.text);
    const poll = await stack.server.request('POST', '/v1/auth/oidc/device/token', { body: { device_code: started.body.device_code } });
    assert.equal(poll.status, 400);
    assert.equal(poll.body.error.code, 'oidc_authorization_pending');
    const forged = await stack.server.request('POST', '/v1/auth/oidc/device/token', { body: { device_code: 'not-a-device-code' } });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'oidc_login_failed');
  });
});
