import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { latestVersion, migrations, pendingMigrations, type Migration } from './index.js';

const step = (version: number): Migration => ({ version, name: `${String(version).padStart(3, '0')}-step`, sql: '', postgres: '' });

describe('migrations', () => {
  it('are numbered by their file names, ascending and unique', () => {
    for (const migration of migrations) assert.equal(Number(migration.name.slice(0, 3)), migration.version);
    assert.deepEqual(pendingMigrations(0).map((m) => m.version), [...migrations.map((m) => m.version)].sort((x, y) => x - y));
  });

  it('tolerate gaps: a database at 1 gets 3; one at 3 gets nothing; a later 002 merged in still runs on fresh databases', () => {
    const withGap = [step(1), step(3)];
    assert.deepEqual(pendingMigrations(1, withGap).map((m) => m.version), [3]);
    assert.deepEqual(pendingMigrations(3, withGap), []);
    assert.equal(latestVersion(withGap), 3);
    const merged = [step(1), step(3), step(2)];
    assert.deepEqual(pendingMigrations(0, merged).map((m) => m.version), [1, 2, 3]);
    assert.deepEqual(pendingMigrations(1, merged).map((m) => m.version), [2, 3]);
  });

  it('refuse two migrations with one number', () => {
    assert.throws(() => pendingMigrations(0, [step(1), step(1)]), /two migrations share number 1/);
  });
});
