import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { readEnvironment } from './environment.js';
import { Client, SvcError, type Me } from './index.js';

const NAMES = ['SVC_ENDPOINT', 'SVC_API_KEY'] as const;
type Name = (typeof NAMES)[number];

/** Runs `body` with the two variables set as given (undefined: unset), then puts the environment back. */
async function withEnvironment(values: Partial<Record<Name, string | undefined>>, body: () => void | Promise<void>): Promise<void> {
  const saved = new Map(NAMES.map((name) => [name, process.env[name]] as const));
  try {
    for (const name of NAMES) {
      const value = values[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await body();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const me: Me = {
  id: 'user-1',
  username: 'ci',
  enabled: true,
  must_change_password: false,
  permissions: ['models:list'],
  auth_type: 'api_key',
  api_key: { id: 'key-1', name: 'ci', key_prefix: 'sk-svc-env' },
  created_at: null,
};

describe('readEnvironment', () => {
  it('Should read SVC_ENDPOINT and SVC_API_KEY', async () => {
    await withEnvironment({ SVC_ENDPOINT: 'http://svc.test:9997', SVC_API_KEY: 'sk-svc-env' }, () => {
      assert.deepEqual(readEnvironment(), { baseUrl: 'http://svc.test:9997', apiKey: 'sk-svc-env' });
    });
  });

  it('Should treat unset, empty and blank variables as absent, and trim the others', async () => {
    await withEnvironment({}, () => assert.deepEqual(readEnvironment(), { baseUrl: undefined, apiKey: undefined }));
    await withEnvironment({ SVC_ENDPOINT: '', SVC_API_KEY: '   ' }, () => assert.deepEqual(readEnvironment(), { baseUrl: undefined, apiKey: undefined }));
    await withEnvironment({ SVC_ENDPOINT: ' http://svc.test \n', SVC_API_KEY: '\tsk-svc-env ' }, () =>
      assert.deepEqual(readEnvironment(), { baseUrl: 'http://svc.test', apiKey: 'sk-svc-env' }),
    );
  });
});

describe('Client defaults from the environment', () => {
  const server = setupServer();
  const authorizations: (string | null)[] = [];
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    authorizations.length = 0;
  });
  afterAll(() => server.close());

  function answerMe(origin: string): void {
    server.use(
      http.get(`${origin}/v1/auth/me`, ({ request }) => {
        authorizations.push(request.headers.get('authorization'));
        return HttpResponse.json(me);
      }),
    );
  }

  it('Should use SVC_ENDPOINT as baseUrl and SVC_API_KEY as apiKey', async () => {
    await withEnvironment({ SVC_ENDPOINT: 'http://env.svc.test/', SVC_API_KEY: 'sk-svc-env' }, async () => {
      answerMe('http://env.svc.test');
      const client = new Client();
      assert.equal(client.baseUrl, 'http://env.svc.test');
      assert.deepEqual(await client.auth.me(), me);
      assert.deepEqual(authorizations, ['Bearer sk-svc-env']);
    });
  });

  it('Should let explicit options win over the environment', async () => {
    await withEnvironment({ SVC_ENDPOINT: 'http://env.svc.test', SVC_API_KEY: 'sk-svc-env' }, async () => {
      answerMe('http://option.svc.test');
      const client = new Client({ baseUrl: 'http://option.svc.test', apiKey: 'sk-svc-option' });
      assert.equal(client.baseUrl, 'http://option.svc.test');
      await client.auth.me();
      assert.deepEqual(authorizations, ['Bearer sk-svc-option']);
    });
  });

  it('Should take baseUrl from the options and apiKey from the environment', async () => {
    await withEnvironment({ SVC_API_KEY: 'sk-svc-env' }, async () => {
      answerMe('http://option.svc.test');
      await new Client({ baseUrl: 'http://option.svc.test' }).auth.me();
      assert.deepEqual(authorizations, ['Bearer sk-svc-env']);
    });
  });

  it('Should send no credentials when neither apiKey nor SVC_API_KEY is set', async () => {
    await withEnvironment({ SVC_ENDPOINT: 'http://env.svc.test' }, async () => {
      answerMe('http://env.svc.test');
      await new Client().auth.me();
      assert.deepEqual(authorizations, [null]);
    });
  });

  it('Should refuse to build a Client without baseUrl or SVC_ENDPOINT, with a clear message', async () => {
    for (const endpoint of [undefined, '', '  ']) {
      await withEnvironment({ SVC_ENDPOINT: endpoint, SVC_API_KEY: 'sk-svc-env' }, () => {
        assert.throws(
          () => new Client(),
          (error: unknown) => {
            assert.ok(error instanceof SvcError);
            assert.match(error.message, /baseUrl/);
            assert.match(error.message, /SVC_ENDPOINT/);
            return true;
          },
        );
      });
    }
  });
});
