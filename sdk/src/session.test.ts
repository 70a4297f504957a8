import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import {
  AuthenticationError,
  Client,
  MemoryTokenStore,
  type ClientOptions,
  type ErrorBody,
  type ErrorCode,
  type Me,
  type StoredSession,
  type TokenPair,
  type TokenStore,
  type User,
} from './index.js';
import { BASE_URL, adminMe, errorBody, alice } from './testing/fixtures.js';

const ADMIN = { username: 'admin', password: 'correct horse battery staple' };


function unauthorized(code: ErrorCode, message: string): Response {
  return HttpResponse.json(errorBody(code, message, 'authentication_error'), { status: 401, headers: { 'www-authenticate': 'Bearer' } });
}

const me: Me = adminMe;


interface SeenRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

/**
 * A small svc server: issues single-use refresh tokens, answers 401 `token_expired` for access tokens
 * it has marked expired, and records every request it sees.
 */
class FakeSvc {
  readonly requests: SeenRequest[] = [];
  readonly validAccessTokens = new Set<string>();
  readonly expiredAccessTokens = new Set<string>();
  readonly validRefreshTokens = new Set<string>();
  /** When true, every refresh fails with 401 `invalid_refresh_token`. */
  refreshFails = false;
  #issued = 0;

  get refreshRequests(): SeenRequest[] {
    return this.requests.filter((request) => request.method === 'POST' && request.path === '/v1/auth/refresh');
  }

  /** The requests of one operation, in order. */
  seen(method: string, path: string): SeenRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  issue(): TokenPair {
    this.#issued += 1;
    const pair: TokenPair = {
      access_token: `access-${this.#issued}`,
      refresh_token: `refresh-${this.#issued}`,
      token_type: 'bearer',
      expires_in: 1800,
      refresh_expires_in: 604_800,
    };
    this.validAccessTokens.add(pair.access_token);
    this.validRefreshTokens.add(pair.refresh_token);
    return pair;
  }

  /** A session as a store would hold it, valid on this server, whose access token expires at `accessTokenExpiresAt`. */
  storedSession(accessTokenExpiresAt: number): StoredSession {
    const pair = this.issue();
    return { accessToken: pair.access_token, refreshToken: pair.refresh_token, accessTokenExpiresAt };
  }

  /** Lets the server consider `accessToken` expired (as when the client's clock is behind). */
  expire(accessToken: string): void {
    this.validAccessTokens.delete(accessToken);
    this.expiredAccessTokens.add(accessToken);
  }

  handlers() {
    const record = async (request: Request): Promise<SeenRequest> => {
      const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text();
      const seen = { method: request.method, path: new URL(request.url).pathname, authorization: request.headers.get('authorization'), body: text === '' ? undefined : JSON.parse(text) };
      this.requests.push(seen);
      return seen;
    };
    const authenticate = (seen: SeenRequest): Response | undefined => {
      if (seen.authorization === null) return unauthorized('missing_credentials', 'Not authenticated: send Authorization: Bearer <access token or API key>');
      const token = seen.authorization.replace(/^Bearer /, '');
      if (token.startsWith('sk-svc-') || this.validAccessTokens.has(token)) return undefined;
      if (this.expiredAccessTokens.has(token)) return unauthorized('token_expired', 'Access token has expired; refresh it or log in again');
      return unauthorized('invalid_token', 'Invalid access token');
    };
    return [
      http.get(`${BASE_URL}/status`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ status: 'ok', version: '1.0.0' });
      }),
      http.get(`${BASE_URL}/v1/cluster/auth`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ auth: true });
      }),
      http.get(`${BASE_URL}/v1/admin/setup/status`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ needs_setup: false, initialized: true, password_min_length: 15 });
      }),
      http.post(`${BASE_URL}/v1/admin/setup`, async ({ request }) => {
        await record(request);
        return HttpResponse.json(errorBody('setup_already_completed', 'Setup has already been completed', 'permission_error'), { status: 403 });
      }),
      http.post(`${BASE_URL}/v1/auth/login`, async ({ request }) => {
        const seen = await record(request);
        const { username, password } = seen.body as { username: string; password: string };
        if (username !== ADMIN.username || password !== ADMIN.password) return unauthorized('invalid_credentials', 'Incorrect username or password');
        return HttpResponse.json(this.issue());
      }),
      http.post(`${BASE_URL}/v1/auth/refresh`, async ({ request }) => {
        const seen = await record(request);
        const { refresh_token: refreshToken } = seen.body as { refresh_token: string };
        if (this.refreshFails || !this.validRefreshTokens.delete(refreshToken)) {
          return unauthorized('invalid_refresh_token', 'Invalid or expired refresh token; log in again');
        }
        return HttpResponse.json(this.issue());
      }),
      http.post(`${BASE_URL}/v1/auth/logout`, async ({ request }) => {
        const seen = await record(request);
        this.validRefreshTokens.delete((seen.body as { refresh_token: string }).refresh_token);
        return HttpResponse.json({ ok: true });
      }),
      http.get(`${BASE_URL}/v1/auth/me`, async ({ request }) => {
        const seen = await record(request);
        return authenticate(seen) ?? HttpResponse.json(me);
      }),
      http.put(`${BASE_URL}/v1/auth/me/password`, async ({ request }) => {
        const seen = await record(request);
        return authenticate(seen) ?? HttpResponse.json(this.issue());
      }),
      http.post(`${BASE_URL}/v1/admin/users`, async ({ request }) => {
        const seen = await record(request);
        return authenticate(seen) ?? HttpResponse.json({ ...alice, username: (seen.body as { username: string }).username }, { status: 201 });
      }),
      http.put(`${BASE_URL}/v1/admin/users/:userId`, async ({ request }) => {
        const seen = await record(request);
        return authenticate(seen) ?? HttpResponse.json({ ...alice, ...(seen.body as object) });
      }),
    ];
  }
}

/** A store whose every method is asynchronous and answers a few ticks later, like one backed by a file or IndexedDB. */
class AsyncTokenStore implements TokenStore {
  session: StoredSession | null;
  readonly calls: string[] = [];

  constructor(session: StoredSession | null = null) {
    this.session = session;
  }

  async get(): Promise<StoredSession | null> {
    this.calls.push('get');
    await new Promise((resolve) => setImmediate(resolve));
    return this.session === null ? null : { ...this.session };
  }

  async set(session: StoredSession): Promise<void> {
    this.calls.push('set');
    await new Promise((resolve) => setImmediate(resolve));
    this.session = { ...session };
  }

  async clear(): Promise<void> {
    this.calls.push('clear');
    await new Promise((resolve) => setImmediate(resolve));
    this.session = null;
  }
}

const server = setupServer();
let fake: FakeSvc;
let savedApiKey: string | undefined;

beforeAll(() => {
  // An API key in the environment would take precedence over the session these tests are about.
  savedApiKey = process.env['SVC_API_KEY'];
  delete process.env['SVC_API_KEY'];
  server.listen({ onUnhandledRequest: 'error' });
});
beforeEach(() => {
  fake = new FakeSvc();
  server.use(...fake.handlers());
});
afterEach(() => server.resetHandlers());
afterAll(() => {
  server.close();
  if (savedApiKey !== undefined) process.env['SVC_API_KEY'] = savedApiKey;
});

function newClient(options: Partial<ClientOptions> = {}): Client {
  return new Client({ baseUrl: BASE_URL, ...options });
}

const expiredAgo = () => Date.now() - 60_000;
const validFor30Minutes = () => Date.now() + 30 * 60_000;

describe('credentials on each call', () => {
  it('Should never send Authorization to public operations, with an API key configured', async () => {
    const client = newClient({ apiKey: 'sk-svc-test' });
    await client.health.status();
    await client.health.authEnabled();
    await client.setup.status();
    await assert.rejects(client.setup.createAdmin(ADMIN), { code: 'setup_already_completed' });
    await client.login(ADMIN.username, ADMIN.password);
    await client.logout();
    assert.equal(fake.requests.length, 6);
    for (const request of fake.requests) assert.equal(request.authorization, null, `${request.method} ${request.path}`);
  });

  it('Should never send Authorization to public operations, with a session (refresh included)', async () => {
    const store = new MemoryTokenStore();
    const client = newClient({ tokenStore: store });
    await client.login(ADMIN.username, ADMIN.password);
    await client.setup.status();
    await client.health.status();
    store.set({ ...(store.get() as StoredSession), accessTokenExpiresAt: expiredAgo() });
    await client.auth.me();
    await client.logout();
    const publicRequests = fake.requests.filter((request) => request.path !== '/v1/auth/me');
    assert.deepEqual(
      publicRequests.map((request) => `${request.method} ${request.path}`),
      ['POST /v1/auth/login', 'GET /v1/admin/setup/status', 'GET /status', 'POST /v1/auth/refresh', 'POST /v1/auth/logout'],
    );
    for (const request of publicRequests) assert.equal(request.authorization, null, `${request.method} ${request.path}`);
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer access-2');
  });

  it('Should send an API key string as a Bearer token', async () => {
    await newClient({ apiKey: 'sk-svc-string' }).auth.me();
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer sk-svc-string');
  });

  it('Should ask an async API key source on every call and send what it returns', async () => {
    let asked = 0;
    const client = newClient({
      apiKey: async () => {
        asked += 1;
        await new Promise((resolve) => setImmediate(resolve));
        return `sk-svc-vault-${asked}`;
      },
    });
    await client.auth.me();
    await client.auth.me();
    assert.deepEqual(
      fake.seen('GET', '/v1/auth/me').map((request) => request.authorization),
      ['Bearer sk-svc-vault-1', 'Bearer sk-svc-vault-2'],
    );
  });

  it('Should send a sync API key function as a Bearer token', async () => {
    await newClient({ apiKey: () => 'sk-svc-sync' }).auth.me();
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer sk-svc-sync');
  });

  it('Should send the session token instead of the API key while logged in, and the key again after logout', async () => {
    const client = newClient({ apiKey: 'sk-svc-test' });
    await client.auth.me();
    await client.login(ADMIN.username, ADMIN.password);
    await client.auth.me();
    await client.logout();
    await client.auth.me();
    assert.deepEqual(
      fake.seen('GET', '/v1/auth/me').map((request) => request.authorization),
      ['Bearer sk-svc-test', 'Bearer access-1', 'Bearer sk-svc-test'],
    );
  });

  it('Should send no Authorization before login, and the server says so', async () => {
    await assert.rejects(newClient().auth.me(), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.code, 'missing_credentials');
      return true;
    });
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, null);
  });

  it('Should keep the pair of login and send its access token on every later call', async () => {
    const store = new MemoryTokenStore();
    const client = newClient({ tokenStore: store });
    const pair = await client.login(ADMIN.username, ADMIN.password);
    assert.equal(pair.access_token, 'access-1');
    assert.deepEqual(fake.seen('POST', '/v1/auth/login')[0]?.body, ADMIN);
    const kept = store.get();
    assert.equal(kept?.accessToken, 'access-1');
    assert.equal(kept?.refreshToken, 'refresh-1');
    assert.ok(kept !== null && kept.accessTokenExpiresAt > Date.now() + 29 * 60_000);
    assert.deepEqual(await client.auth.me(), me);
    await client.users.create({ username: 'alice', password: 'another long passphrase' });
    assert.deepEqual(
      fake.requests.filter((request) => request.path !== '/v1/auth/login').map((request) => request.authorization),
      ['Bearer access-1', 'Bearer access-1'],
    );
    assert.equal(fake.refreshRequests.length, 0);
  });

  it('Should surface a failed login as AuthenticationError and keep no session', async () => {
    const store = new MemoryTokenStore();
    await assert.rejects(newClient({ tokenStore: store }).login(ADMIN.username, 'wrong password, long enough'), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.code, 'invalid_credentials');
      assert.equal(error.message, 'Incorrect username or password');
      return true;
    });
    assert.equal(store.get(), null);
  });

  it('Should keep the fresh pair a password change answers with', async () => {
    const client = newClient();
    await client.login(ADMIN.username, ADMIN.password);
    await client.auth.changePassword({ current_password: ADMIN.password, new_password: 'a much longer passphrase nobody guesses' });
    await client.auth.me();
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer access-2');
  });
});

describe('proactive refresh (the stored access token has expired)', () => {
  it('Should refresh once before the call and send the new access token', async () => {
    const stored = fake.storedSession(expiredAgo());
    const store = new MemoryTokenStore();
    store.set(stored);
    assert.deepEqual(await newClient({ tokenStore: store }).auth.me(), me);
    assert.deepEqual(
      fake.requests.map((request) => `${request.method} ${request.path} ${request.authorization ?? '-'}`),
      ['POST /v1/auth/refresh -', 'GET /v1/auth/me Bearer access-2'],
    );
    assert.deepEqual(fake.refreshRequests[0]?.body, { refresh_token: stored.refreshToken });
    assert.equal(store.get()?.accessToken, 'access-2');
    assert.equal(store.get()?.refreshToken, 'refresh-2');
  });

  it('Should refresh an access token that expires within the next seconds', async () => {
    const store = new MemoryTokenStore();
    store.set(fake.storedSession(Date.now() + 2_000));
    await newClient({ tokenStore: store }).auth.me();
    assert.equal(fake.refreshRequests.length, 1);
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer access-2');
  });

  it('Should not refresh an access token that is still valid', async () => {
    const store = new MemoryTokenStore();
    store.set(fake.storedSession(validFor30Minutes()));
    await newClient({ tokenStore: store }).auth.me();
    assert.equal(fake.refreshRequests.length, 0);
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer access-1');
  });

  it('Should make exactly one refresh request for 100 concurrent calls', async () => {
    const store = new MemoryTokenStore();
    store.set(fake.storedSession(expiredAgo()));
    const client = newClient({ tokenStore: store });
    const results = await Promise.all(Array.from({ length: 100 }, () => client.auth.me()));
    assert.equal(results.length, 100);
    assert.equal(fake.refreshRequests.length, 1);
    const calls = fake.seen('GET', '/v1/auth/me');
    assert.equal(calls.length, 100);
    for (const call of calls) assert.equal(call.authorization, 'Bearer access-2');
  });

  it('Should make exactly one refresh request for 100 concurrent calls with an async token store', async () => {
    const store = new AsyncTokenStore(fake.storedSession(expiredAgo()));
    const client = newClient({ tokenStore: store });
    await Promise.all(Array.from({ length: 100 }, () => client.auth.me()));
    assert.equal(fake.refreshRequests.length, 1);
    assert.equal(fake.seen('GET', '/v1/auth/me').length, 100);
    assert.equal(store.session?.accessToken, 'access-2');
  });
});

describe('reactive refresh (the server answers 401 token_expired)', () => {
  /** A client whose stored access token looks valid to it but which the server considers expired. */
  function clientWithServerExpiredToken(store: TokenStore = new MemoryTokenStore()): { client: Client; store: TokenStore } {
    const stored = fake.storedSession(validFor30Minutes());
    fake.expire(stored.accessToken);
    void store.set(stored);
    return { client: newClient({ tokenStore: store }), store };
  }

  it('Should refresh once and replay the call', async () => {
    const { client, store } = clientWithServerExpiredToken();
    assert.deepEqual(await client.auth.me(), me);
    assert.deepEqual(
      fake.requests.map((request) => `${request.method} ${request.path} ${request.authorization ?? '-'}`),
      ['GET /v1/auth/me Bearer access-1', 'POST /v1/auth/refresh -', 'GET /v1/auth/me Bearer access-2'],
    );
    assert.equal((await store.get())?.accessToken, 'access-2');
  });

  it('Should replay a PUT with its body', async () => {
    const { client } = clientWithServerExpiredToken();
    const updated = await client.users.update('user-2', { enabled: false, permissions: ['models:read'] });
    assert.equal(updated.enabled, false);
    const puts = fake.seen('PUT', '/v1/admin/users/user-2');
    assert.deepEqual(
      puts.map((request) => request.authorization),
      ['Bearer access-1', 'Bearer access-2'],
    );
    for (const put of puts) assert.deepEqual(put.body, { enabled: false, permissions: ['models:read'] });
    assert.equal(fake.refreshRequests.length, 1);
  });

  it('Should replay a POST with its body', async () => {
    const { client } = clientWithServerExpiredToken();
    const created = await client.users.create({ username: 'bob', password: 'yet another long passphrase', permissions: ['models:list'] });
    assert.equal(created.username, 'bob');
    const posts = fake.seen('POST', '/v1/admin/users');
    assert.equal(posts.length, 2);
    assert.equal(posts[1]?.authorization, 'Bearer access-2');
    for (const post of posts) assert.deepEqual(post.body, { username: 'bob', password: 'yet another long passphrase', permissions: ['models:list'] });
  });

  it('Should make exactly one refresh request for 100 concurrent calls that all get token_expired', async () => {
    const { client } = clientWithServerExpiredToken(new AsyncTokenStore());
    await Promise.all(Array.from({ length: 100 }, () => client.auth.me()));
    assert.equal(fake.refreshRequests.length, 1);
    const calls = fake.seen('GET', '/v1/auth/me');
    assert.ok(calls.some((call) => call.authorization === 'Bearer access-1'));
    assert.equal(calls.filter((call) => call.authorization === 'Bearer access-2').length, 100);
  });

  it('Should not refresh again for a call whose token_expired answer arrives after the refresh', async () => {
    const { client } = clientWithServerExpiredToken();
    let entered!: () => void;
    let release!: () => void;
    const slowCallArrived = new Promise<void>((resolve) => (entered = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    server.use(
      http.put(`${BASE_URL}/v1/admin/users/:userId`, async () => {
        if (held) return undefined; // the replay: on to the fake server's handler
        held = true;
        entered();
        await gate;
        return undefined; // the fake server answers 401 token_expired for the old token
      }),
    );
    const slow = client.users.update('user-2', { enabled: false });
    await slowCallArrived;
    await client.auth.me(); // refreshes and replays while the slow call is still out
    assert.equal(fake.refreshRequests.length, 1);
    release();
    assert.equal((await slow).enabled, false);
    assert.equal(fake.refreshRequests.length, 1);
    assert.deepEqual(
      fake.seen('PUT', '/v1/admin/users/user-2').map((request) => request.authorization),
      ['Bearer access-1', 'Bearer access-2'],
    );
  });

  it('Should not refresh on a 401 with another code', async () => {
    const store = new MemoryTokenStore();
    store.set({ accessToken: 'forged', refreshToken: 'refresh-x', accessTokenExpiresAt: validFor30Minutes() });
    await assert.rejects(newClient({ tokenStore: store }).auth.me(), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.code, 'invalid_token');
      return true;
    });
    assert.equal(fake.refreshRequests.length, 0);
    assert.equal(fake.seen('GET', '/v1/auth/me').length, 1);
  });

  it('Should replay only once when the replay is refused as expired too', async () => {
    const { client } = clientWithServerExpiredToken();
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, ({ request }) => {
        fake.requests.push({ method: 'GET', path: '/v1/auth/me', authorization: request.headers.get('authorization'), body: undefined });
        return unauthorized('token_expired', 'Access token has expired; refresh it or log in again');
      }),
    );
    await assert.rejects(client.auth.me(), { name: 'AuthenticationError', code: 'token_expired' });
    assert.equal(fake.refreshRequests.length, 1);
    assert.equal(fake.seen('GET', '/v1/auth/me').length, 2);
  });
});

describe('a refresh that fails', () => {
  it('Should clear the session and surface as AuthenticationError with the server message (proactive)', async () => {
    fake.refreshFails = true;
    const store = new MemoryTokenStore();
    store.set(fake.storedSession(expiredAgo()));
    const client = newClient({ tokenStore: store });
    await assert.rejects(client.auth.me(), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'invalid_refresh_token');
      assert.equal(error.message, 'Invalid or expired refresh token; log in again');
      return true;
    });
    assert.equal(store.get(), null);
    assert.equal(fake.seen('GET', '/v1/auth/me').length, 0);
    // Logged out now: the next call carries no credentials at all.
    await assert.rejects(client.auth.me(), { code: 'missing_credentials' });
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, null);
    assert.equal(fake.refreshRequests.length, 1);
  });

  it('Should clear the session and surface as AuthenticationError (reactive)', async () => {
    const store = new AsyncTokenStore();
    const stored = fake.storedSession(validFor30Minutes());
    fake.expire(stored.accessToken);
    fake.refreshFails = true;
    store.session = stored;
    await assert.rejects(newClient({ tokenStore: store }).auth.me(), { name: 'AuthenticationError', code: 'invalid_refresh_token', message: 'Invalid or expired refresh token; log in again' });
    assert.equal(await store.get(), null);
    assert.equal(fake.refreshRequests.length, 1);
  });

  it('Should fail all of 100 concurrent calls after one refresh request', async () => {
    fake.refreshFails = true;
    const store = new MemoryTokenStore();
    store.set(fake.storedSession(expiredAgo()));
    const client = newClient({ tokenStore: store });
    const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => client.auth.me()));
    assert.equal(fake.refreshRequests.length, 1);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.reason instanceof AuthenticationError);
    }
    assert.equal(store.get(), null);
  });
  it('Should keep the session when the refresh fails on the way (503), so a later call can try again', async () => {
    const store = new MemoryTokenStore();
    const stored = fake.storedSession(expiredAgo());
    store.set(stored);
    const client = newClient({ tokenStore: store, maxRetries: 0 });
    server.use(
      http.post(`${BASE_URL}/v1/auth/refresh`, () =>
        HttpResponse.json(errorBody('service_unavailable', 'The service is temporarily unavailable', 'server_error'), { status: 503 }),
      ),
    );
    await assert.rejects(client.auth.me(), { name: 'InternalServerError', status: 503, code: 'service_unavailable' });
    assert.deepEqual(store.get(), stored);
  });
});

describe('logout', () => {
  it('Should post the refresh token, without Authorization, and clear the store', async () => {
    const store = new MemoryTokenStore();
    const client = newClient({ tokenStore: store });
    const pair = await client.login(ADMIN.username, ADMIN.password);
    await client.logout();
    const [logout] = fake.seen('POST', '/v1/auth/logout');
    assert.deepEqual(logout?.body, { refresh_token: pair.refresh_token });
    assert.equal(logout?.authorization, null);
    assert.equal(store.get(), null);
    assert.equal(fake.validRefreshTokens.has(pair.refresh_token), false);
    await assert.rejects(client.auth.me(), { code: 'missing_credentials' });
  });

  it('Should send nothing when not logged in', async () => {
    await newClient().logout();
    assert.equal(fake.requests.length, 0);
  });
});

describe('a custom TokenStore', () => {
  it('Should be used for login, calls, refresh and logout', async () => {
    const store = new AsyncTokenStore();
    const client = newClient({ tokenStore: store });
    await client.login(ADMIN.username, ADMIN.password);
    assert.deepEqual(store.session, { accessToken: 'access-1', refreshToken: 'refresh-1', accessTokenExpiresAt: store.session?.accessTokenExpiresAt });
    await client.auth.me();
    assert.equal(fake.seen('GET', '/v1/auth/me')[0]?.authorization, 'Bearer access-1');

    // The store, not the client, is the source of truth: a session written by someone else is used.
    store.session = fake.storedSession(expiredAgo());
    await client.auth.me();
    assert.equal(fake.refreshRequests.length, 1);
    assert.deepEqual(fake.refreshRequests[0]?.body, { refresh_token: 'refresh-2' });
    assert.equal(store.session?.accessToken, 'access-3');

    await client.logout();
    assert.deepEqual(fake.seen('POST', '/v1/auth/logout')[0]?.body, { refresh_token: 'refresh-3' });
    assert.equal(store.session, null);
    assert.ok(store.calls.includes('get') && store.calls.includes('set') && store.calls.includes('clear'));
  });
});
