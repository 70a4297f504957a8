import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { DatabaseUrlError, parseDatabaseUrl, redactDatabaseUrl } from './database-url.js';

const directory = mkdtempSync(path.join(tmpdir(), 'svc-database-url-'));
const caFile = path.join(directory, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Asserts that `text` is refused with a message matching `reason` that never shows `secret`. */
function assertRefused(text: string, reason: RegExp, secret = 's3cret'): void {
  assert.throws(
    () => parseDatabaseUrl(text),
    (error: unknown) => {
      assert.ok(error instanceof DatabaseUrlError);
      assert.match(error.message, /^SVC_DATABASE_URL=".*" is not a PostgreSQL URL: /);
      assert.match(error.message, reason);
      assert.ok(!error.message.includes(secret), `the message shows the password: ${error.message}`);
      assert.ok(!error.message.includes('\n'), 'one line');
      return true;
    },
  );
}

describe('SVC_DATABASE_URL', () => {
  it('accepts postgres:// and postgresql:// URLs and reads their parts', () => {
    const database = parseDatabaseUrl('postgres://svc:s3cret@db.internal:6543/svc_prod');
    assert.deepEqual(
      { ...database, url: undefined },
      { url: undefined, redacted: 'postgres://svc:***@db.internal:6543/svc_prod', host: 'db.internal', port: 6543, database: 'svc_prod', user: 'svc', sslMode: null },
    );
    assert.equal(database.url, 'postgres://svc:s3cret@db.internal:6543/svc_prod');
    const defaults = parseDatabaseUrl('postgresql://db/svc');
    assert.equal(defaults.port, 5432);
    assert.equal(defaults.user, null);
    assert.equal(parseDatabaseUrl('postgres://svc:pw@[::1]:5432/svc').host, '::1');
  });

  it('accepts sslmode and a readable CA file as the pg ecosystem spells them', () => {
    const database = parseDatabaseUrl(`postgres://svc:s3cret@db:5432/svc?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`);
    assert.equal(database.sslMode, 'verify-full');
    for (const mode of ['disable', 'prefer', 'require', 'verify-ca', 'no-verify']) assert.equal(parseDatabaseUrl(`postgres://db/svc?sslmode=${mode}&sslrootcert=${caFile}`).sslMode, mode);
  });

  it('refuses, in one line that hides the password, what cannot work', () => {
    assertRefused('mysql://svc:s3cret@db/svc', /must start with postgres:\/\/ or postgresql:\/\//);
    assertRefused('db.internal:5432', /must start with postgres/);
    assertRefused('postgres://svc:s3cret@db:99999/svc', /out of range|malformed/);
    assertRefused('postgres://svc:s3cret@db:5432', /names no database/);
    assertRefused('postgres://svc:s3cret@db:5432/', /names no database/);
    assertRefused('postgres://svc:s3cret@db/svc?sslmode=bogus', /sslmode=bogus is not one of disable, prefer, require, verify-ca, verify-full, no-verify/);
    assertRefused('postgres://svc:s3cret@db/svc?sslmode=verify-full&sslrootcert=/no/such/ca.pem', /sslrootcert=\/no\/such\/ca\.pem cannot be read \(ENOENT\)/);
    assertRefused('postgres://svc:s3cret@db/svc?sslcert=/no/such/cert.pem', /sslcert=.* cannot be read/);
    assertRefused('postgres://svc:s3cret@:5432/svc', /names no host|malformed/);
    assertRefused('postgres://svc:s3cret@db/svc?sslmode=verify-ca&uselibpqcompat=true', /verify-ca requires specifying a CA/);
  });

  it('redacts every password: in the user information (even unencoded), and password query parameters', () => {
    assert.equal(redactDatabaseUrl('postgres://svc:s3cret@db:5432/svc'), 'postgres://svc:***@db:5432/svc');
    assert.equal(redactDatabaseUrl('postgres://svc:p@ss/w?rd@db:5432/svc'), 'postgres://svc:***@db:5432/svc');
    assert.equal(redactDatabaseUrl('postgres://svc@db:5432/svc'), 'postgres://svc@db:5432/svc');
    assert.equal(redactDatabaseUrl('postgres://db/svc?user=svc&password=s3cret&sslmode=require'), 'postgres://db/svc?user=svc&password=***&sslmode=require');
    assert.equal(redactDatabaseUrl('postgres://db/svc?sslpassword=s3cret'), 'postgres://db/svc?sslpassword=***');
    assert.equal(redactDatabaseUrl('postgres://db:5432/svc'), 'postgres://db:5432/svc');
    assertRefused('postgres://svc:s3cret@db/svc?password=s3cret&sslmode=nope', /sslmode=nope/);
  });
});
