import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CliError, ExitCode } from './exit-codes.js';
import { FileTokenStore, SessionFile, sessionsFilePath } from './session-file.js';

describe('SessionFile and FileTokenStore', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-sessions-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const session = (n: number) => ({ accessToken: `a${n}`, refreshToken: `r${n}`, accessTokenExpiresAt: n });

  it('keeps one session per endpoint; a refresh keeps the username, a login replaces it', async () => {
    const file = new SessionFile(sessionsFilePath(home));
    new FileTokenStore(file, 'http://a', 'alice').set(session(1));
    new FileTokenStore(file, 'http://b', 'bob').set(session(2));
    const refreshing = new FileTokenStore(file, 'http://a');
    refreshing.set(session(3));
    assert.deepEqual(file.get('http://a'), { ...session(3), username: 'alice' });
    new FileTokenStore(file, 'http://a', 'carol').set(session(4));
    assert.equal(file.get('http://a')?.username, 'carol');
    assert.equal(file.get('http://b')?.username, 'bob');
    refreshing.clear();
    assert.equal(file.get('http://a'), null);
    assert.equal(file.delete('http://a'), false);
    assert.equal((await stat(file.path)).mode & 0o777, 0o600);
    assert.deepEqual(Object.keys(JSON.parse(await readFile(file.path, 'utf8')).sessions), ['http://b']);
  });

  it('a damaged file is reported (exit 1) with what to do, not overwritten silently', async () => {
    const path = join(home, 'damaged.json');
    await writeFile(path, '{ half');
    const file = new SessionFile(path);
    assert.throws(
      () => file.get('http://a'),
      (error) => error instanceof CliError && error.exitCode === ExitCode.usage && /is damaged; delete it and log in again/.test(error.message),
    );
    assert.equal(await readFile(path, 'utf8'), '{ half');
  });
});
