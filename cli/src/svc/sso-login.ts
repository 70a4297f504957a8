/**
 * `svc login --sso`: single sign-on through the server's OpenID provider. The CLI listens on a
 * loopback address (127.0.0.1, a free port), asks the server to start a sign-in that ends there,
 * and prints the URL (opening the browser when asked). The server, after the provider's callback,
 * redirects the browser to the loopback address with a one-time code, which only this process can
 * redeem: it holds the PKCE verifier whose challenge started the sign-in.
 *
 * With `--device` (where the provider offers the device authorization grant) no loopback address
 * is needed: the person enters a code at the provider's page on any device while the CLI polls.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadRequestError, Client, MemoryTokenStore } from '@svc/sdk';
import { CliError, ExitCode } from '../exit-codes.js';
import type { Output } from '../output.js';
import type { SessionFile } from '../session-file.js';

/** What the loopback address received. */
type LoopbackAnswer = { code: string } | { error: string; description: string };

/** How `svc login --sso` runs. */
export interface SsoLoginOptions {
  endpoint: string;
  sessions: SessionFile;
  output: Output;
  /** Open the URL with the system's browser too (it is printed either way). */
  openBrowser: boolean;
  /** How long to wait for the browser to come back, in seconds. */
  timeoutSeconds: number;
  /** Use the device authorization grant instead of a loopback redirect. */
  device: boolean;
}

const CALLBACK_PATH = '/callback';

/** Signs in through the provider and stores the session; resolves with the username. */
export async function ssoLogin(options: SsoLoginOptions): Promise<string> {
  const store = new MemoryTokenStore();
  const client = new Client({ baseUrl: options.endpoint, apiKey: notNeeded, tokenStore: store });
  const offer = await client.auth.ssoOptions();
  if (!offer.enabled) throw new CliError(ExitCode.usage, `${options.endpoint} does not offer single sign-on; log in with --username`);
  if (options.device) return deviceLogin(client, store, options);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const loopback = await listenOnLoopback();
  try {
    const url = new URL(`${options.endpoint}/v1/auth/oidc/login`);
    url.searchParams.set('cli_redirect_uri', loopback.redirectUri);
    url.searchParams.set('cli_code_challenge', challenge);
    options.output.note(`Sign in with ${offer.display_name ?? 'single sign-on'} in a browser at:\n${url.href}`);
    if (options.openBrowser) openInBrowser(url.href);
    const answer = await loopback.answer(options.timeoutSeconds * 1000);
    if ('error' in answer) throw new CliError(ExitCode.authentication, `${answer.description} (${answer.error})`);
    await client.auth.exchangeSsoCode({ code: answer.code, code_verifier: verifier });
    return await keepSession(client, store, options);
  } finally {
    loopback.close();
  }
}

/** Stores the session the client now holds under its username; resolves with the username. */
async function keepSession(client: Client, store: MemoryTokenStore, options: SsoLoginOptions): Promise<string> {
  const me = await client.auth.me();
  const session = store.get();
  if (session === null) throw new CliError(ExitCode.authentication, 'single sign-on ended without a session');
  options.sessions.set(options.endpoint, { ...session, username: me.username });
  return me.username;
}

/** The device authorization grant: show the code, poll every `interval` seconds until approved. */
async function deviceLogin(client: Client, store: MemoryTokenStore, options: SsoLoginOptions): Promise<string> {
  const started = await client.auth.startSsoDevice();
  options.output.note(
    `To sign in, open ${started.verification_uri} and enter the code ${started.user_code}` +
      (started.verification_uri_complete === undefined ? '' : `\nor open: ${started.verification_uri_complete}`),
  );
  const deadline = Date.now() + Math.min(started.expires_in, options.timeoutSeconds) * 1000;
  let interval = started.interval;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
    try {
      await client.auth.pollSsoDevice(started.device_code);
      return await keepSession(client, store, options);
    } catch (error) {
      const code = error instanceof BadRequestError ? error.code : undefined;
      if (code !== 'oidc_authorization_pending' && code !== 'oidc_slow_down') throw error;
      if (code === 'oidc_slow_down') interval += 5;
      if (Date.now() + interval * 1000 > deadline) throw new CliError(ExitCode.authentication, 'the device sign-in was not approved in time; run svc login --sso --device again');
    }
  }
}

/** Asked for only if a call needs credentials before the session exists. */
function notNeeded(): never {
  throw new CliError(ExitCode.authentication, 'Not logged in to this endpoint');
}

/** A one-shot HTTP listener on 127.0.0.1 that waits for the server's redirect. */
async function listenOnLoopback(): Promise<{ redirectUri: string; answer(timeoutMs: number): Promise<LoopbackAnswer>; close(): void }> {
  let settle: (answer: LoopbackAnswer) => void = () => undefined;
  const received = new Promise<LoopbackAnswer>((resolve) => (settle = resolve));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    const answer: LoopbackAnswer | null =
      code !== null ? { code } : error !== null ? { error, description: url.searchParams.get('error_description') ?? error } : null;
    if (answer === null) {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Missing code\n');
      return;
    }
    const message = 'code' in answer ? 'Signed in. You can close this tab and return to the terminal.' : `Sign-in failed: ${answer.description}`;
    response.writeHead('code' in answer ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${message}\n`);
    settle(answer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    answer(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CliError(ExitCode.authentication, `no sign-in came back within ${timeoutMs / 1000} seconds; run svc login --sso again`)), timeoutMs);
      });
      return Promise.race([received, expired]).finally(() => clearTimeout(timer));
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Opens `url` with the platform's browser launcher; the URL is printed anyway, so failure is silent. */
function openInBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // printed already
  }
}
