import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { buildApp } from '../app.js';
import { ConfigError, loadConfig } from '../config.js';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import { checkSecretFingerprints, type HeldSecret } from './secret-fingerprints.js';

const NOW = Date.UTC(2026, 10, 24, 4, 0, 0);
const newSecret = (): string => randomBytes(32).toString('hex');

function held(name: HeldSecret['name'], value: string, generated = false): HeldSecret {
  return name === 'jwt_signing'
    ? { name, label: 'JWT signing secret', source: { kind: 'env', variable: 'SVC_AUTH_JWT_SECRET_KEY', value }, value, generated }
    : { name, label: 'API key encryption key', source: { kind: 'file', path: '/home/svc/auth/encryption_key' }, value, generated };
}

describe('checkSecretFingerprints', () => {
  let directory: string;
  let storage: SqliteStorage;
  let warnings: string[];
  const check = (secrets: HeldSecret[], replace = false) => checkSecretFingerprints(storage.secretFingerprints, secrets, { replace, now: NOW, warn: (message) => warnings.push(message) });

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'svc-fingerprints-'));
    storage = SqliteStorage.open(join(directory, 'auth.db'));
    warnings = [];
  });

  afterEach(async () => {
    await storage.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('Should accept the secrets it recorded on first start, on every later start', async () => {
    const jwt = newSecret();
    const encryption = newSecret();
    await check([held('jwt_signing', jwt), held('encryption', encryption)]);
    await check([held('jwt_signing', jwt), held('encryption', encryption)]);
    assert.deepEqual(warnings, []);
  });

  it('Should name every differing secret and its source in one line, with no value, and record nothing', async () => {
    const jwt = newSecret();
    const encryption = newSecret();
    await check([held('jwt_signing', jwt), held('encryption', encryption)]);
    const others = [newSecret(), newSecret()];
    const error = await check([held('jwt_signing', others[0]!), held('encryption', others[1]!)]).then(
      () => assert.fail('started'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ConfigError);
    assert.equal(
      error.message,
      'the JWT signing secret given by SVC_AUTH_JWT_SECRET_KEY and the API key encryption key given by the file /home/svc/auth/encryption_key are not the ones ' +
        'this database was first started with (their fingerprints differ): give every host the same SVC_AUTH_JWT_SECRET_KEY and SVC_AUTH_ENCRYPTION_KEY, ' +
        'or, to rotate, stop every host and start one with --replace-secret-fingerprints (docs/deployment.md)',
    );
    await check([held('jwt_signing', jwt), held('encryption', encryption)]);
  });

  it('Should let a secret generated on this start replace the record, with a warning', async () => {
    await check([held('jwt_signing', newSecret())]);
    const generated = newSecret();
    await check([held('jwt_signing', generated, true)]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /JWT signing secret was generated anew/);
    await check([held('jwt_signing', generated)]);
  });

  it('Should record the given secrets in place of the stored ones when replacing, and refuse the old ones after', async () => {
    const old = newSecret();
    await check([held('encryption', old)]);
    const rotated = newSecret();
    await check([held('encryption', rotated)], true);
    assert.match(warnings.at(-1) ?? '', /--replace-secret-fingerprints/);
    await check([held('encryption', rotated)]);
    await assert.rejects(check([held('encryption', old)]), /the API key encryption key given by the file \/home\/svc\/auth\/encryption_key is not the one/);
  });
});

describe('secret fingerprints when several servers start together on SQLite', () => {
  it('Should start every one after the JWT secret file was lost: the check runs under the write lock, so none reads the new file before its fingerprint', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-fingerprints-race-'));
    try {
      await (await buildApp(loadConfig({ SVC_HOME: home }))).close();
      const jwtFile = join(home, 'auth', 'jwt_secret_key');
      await rm(jwtFile);
      // In one process their awaits interleave turn by turn: without the lock, a later one read the
      // file the first had just generated and claimed the old fingerprint before the first replaced it.
      const starts = await Promise.allSettled([1, 2, 3, 4].map(() => buildApp(loadConfig({ SVC_HOME: home }))));
      const apps = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
      await Promise.all(apps.map((app) => app.close()));
      const refusals = starts.flatMap((start) => (start.status === 'rejected' ? [String(start.reason)] : []));
      assert.deepEqual(refusals, []);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
