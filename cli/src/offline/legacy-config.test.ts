import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { validateLegacyConfig } from './legacy-config.js';

const valid = {
  auth_config: { algorithm: 'HS256', secret_key: '09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7', token_expire_in_minutes: 'never checked' },
  user_config: [{ username: 'alice', password: 'secret', permissions: ['models:start', 'admin'], api_keys: ['sk-72tkvudyGLPMi'] }],
};

const pathsOf = (document: unknown) => {
  const result = validateLegacyConfig(document);
  return result.ok ? [] : result.problems.map((p) => p.path);
};

describe('validateLegacyConfig', () => {
  it('accepts the legacy shape (token_expire_in_minutes is ignored) and keeps permission names for mapping', () => {
    const result = validateLegacyConfig(valid);
    assert.ok(result.ok);
    assert.deepEqual(result.users, [{ username: 'alice', password: 'secret', permissions: ['models:start', 'admin'], apiKeys: ['sk-72tkvudyGLPMi'], path: '$.user_config[0]' }]);
  });

  it('reports a bad algorithm, a non-hex secret and missing sections with their paths', () => {
    assert.deepEqual(pathsOf({ auth_config: { algorithm: 'RS256', secret_key: 'xyz' } }), ['$.auth_config.algorithm', '$.auth_config.secret_key', '$.user_config']);
    assert.deepEqual(pathsOf({ user_config: [] }), ['$.auth_config']);
    assert.deepEqual(pathsOf({ auth_config: {}, user_config: [] }), ['$.auth_config.algorithm', '$.auth_config.secret_key']);
    assert.deepEqual(pathsOf([]), ['$']);
  });

  it('reports every missing field of a user', () => {
    assert.deepEqual(pathsOf({ ...valid, user_config: [{}] }), [
      '$.user_config[0].username',
      '$.user_config[0].password',
      '$.user_config[0].permissions',
      '$.user_config[0].api_keys',
    ]);
  });

  it('reports malformed keys, unknown permissions, and duplicate usernames (ignoring case) and keys', () => {
    const result = validateLegacyConfig({
      ...valid,
      user_config: [
        { username: 'alice', password: 'x', permissions: ['models:list', 'bogus'], api_keys: ['sk-short', 'sk-72tkvudyGLPMi', 'sk-72tkvudyGLPM!'] },
        { username: 'ALICE', password: 'y', permissions: [], api_keys: ['sk-72tkvudyGLPMi'] },
      ],
    });
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((p) => p.path),
      ['$.user_config[0].permissions[1]', '$.user_config[0].api_keys[0]', '$.user_config[0].api_keys[2]', '$.user_config[1].username', '$.user_config[1].api_keys[0]'],
    );
    assert.match(result.problems[3]?.message ?? '', /duplicate username "ALICE" \(also at \$\.user_config\[0\]\.username/);
    assert.match(result.problems[4]?.message ?? '', /duplicate API key \(also at \$\.user_config\[0\]\.api_keys\[1\]\)/);
    assert.ok(!JSON.stringify(result.problems).includes('sk-72tkvudyGLPMi'), 'a key is never echoed');
  });
});
