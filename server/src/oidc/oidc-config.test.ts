/**
 * The single sign-on configuration (`SVC_OIDC_*`): what it accepts, and that every bad value stops
 * start-up with one line naming the variable (in `loadConfig`, and through a real `svc-local`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { nodeArguments, svcLocalPath, withTempHome } from '../testing/index.js';

const home = '/tmp/svc-oidc-config-test-home';
const valid = {
  SVC_OIDC_ISSUER: 'https://idp.example.com/realms/acme/',
  SVC_OIDC_CLIENT_ID: 'svc',
  SVC_OIDC_REDIRECT_BASE_URL: 'https://svc.example.com/',
};

function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ SVC_HOME: home, ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
    return error;
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig: SVC_OIDC_*', () => {
  it('Should leave single sign-on off when SVC_OIDC_ISSUER is unset', () => {
    assert.equal(loadConfig({ SVC_HOME: home }).oidc, null);
  });

  it('Should read a public client with the defaults', () => {
    const oidc = loadConfig({ SVC_HOME: home, ...valid }).oidc;
    assert.deepEqual(oidc, {
      issuer: 'https://idp.example.com/realms/acme',
      clientId: 'svc',
      clientSecret: null,
      scopes: ['openid', 'profile', 'email'],
      redirectBaseUrl: 'https://svc.example.com',
      usernameClaim: 'preferred_username',
      groupsClaim: 'groups',
      groupPermissions: {},
      displayName: 'idp.example.com',
    });
  });

  it('Should read a confidential client, the claims and the mapping inline or from a file', async () => {
    const mapping = { 'ml-admins': ['admin'], 'ml-users': ['models:read', 'keys:create', 'models:read'] };
    const oidc = loadConfig({
      SVC_HOME: home,
      ...valid,
      SVC_OIDC_CLIENT_SECRET: 's3cret',
      SVC_OIDC_SCOPES: 'openid email groups',
      SVC_OIDC_USERNAME_CLAIM: 'email',
      SVC_OIDC_GROUPS_CLAIM: 'realm_access.roles',
      SVC_OIDC_GROUP_PERMISSIONS: JSON.stringify(mapping),
      SVC_OIDC_DISPLAY_NAME: 'Keycloak',
    }).oidc;
    assert.equal(oidc?.clientSecret, 's3cret');
    assert.deepEqual(oidc?.scopes, ['openid', 'email', 'groups']);
    assert.equal(oidc?.usernameClaim, 'email');
    assert.equal(oidc?.groupsClaim, 'realm_access.roles');
    assert.deepEqual({ ...oidc?.groupPermissions }, { 'ml-admins': ['admin'], 'ml-users': ['models:read', 'keys:create'] });
    assert.equal(oidc?.displayName, 'Keycloak');
    await withTempHome('svc-oidc-map-', async (directory) => {
      const file = join(directory, 'groups.json');
      await writeFile(file, JSON.stringify(mapping));
      assert.deepEqual(loadConfig({ SVC_HOME: home, ...valid, SVC_OIDC_GROUP_PERMISSIONS_FILE: file }).oidc?.groupPermissions['ml-admins'], ['admin']);
    });
  });

  it('Should allow plain http only for a loopback host', () => {
    assert.equal(loadConfig({ SVC_HOME: home, ...valid, SVC_OIDC_ISSUER: 'http://127.0.0.1:8080' }).oidc?.issuer, 'http://127.0.0.1:8080');
    assert.match(errorFor({ ...valid, SVC_OIDC_ISSUER: 'http://idp.example.com' }).message, /^SVC_OIDC_ISSUER=.* must use https/);
    assert.match(errorFor({ ...valid, SVC_OIDC_REDIRECT_BASE_URL: 'http://svc.example.com' }).message, /^SVC_OIDC_REDIRECT_BASE_URL=.* must use https/);
  });

  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['a client id without an issuer', { SVC_OIDC_CLIENT_ID: 'svc' }, /^SVC_OIDC_CLIENT_ID is set but SVC_OIDC_ISSUER is not/],
    ['an issuer that is not a URL', { ...valid, SVC_OIDC_ISSUER: 'idp.example.com' }, /^SVC_OIDC_ISSUER=.* is not a URL/],
    ['an issuer with a query', { ...valid, SVC_OIDC_ISSUER: 'https://idp.example.com/?x=1' }, /^SVC_OIDC_ISSUER=.* must not carry a query/],
    ['no client id', { SVC_OIDC_ISSUER: valid.SVC_OIDC_ISSUER, SVC_OIDC_REDIRECT_BASE_URL: valid.SVC_OIDC_REDIRECT_BASE_URL }, /^SVC_OIDC_CLIENT_ID is required/],
    ['no redirect base', { SVC_OIDC_ISSUER: valid.SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID: 'svc' }, /^SVC_OIDC_REDIRECT_BASE_URL is required/],
    ['scopes without openid', { ...valid, SVC_OIDC_SCOPES: 'profile email' }, /^SVC_OIDC_SCOPES=.* must include openid/],
    ['a username claim that is not a name', { ...valid, SVC_OIDC_USERNAME_CLAIM: 'a b' }, /^SVC_OIDC_USERNAME_CLAIM=/],
    ['a groups claim that is not a name', { ...valid, SVC_OIDC_GROUPS_CLAIM: 'groups..x' }, /^SVC_OIDC_GROUPS_CLAIM=/],
    ['a mapping that is not JSON', { ...valid, SVC_OIDC_GROUP_PERMISSIONS: '{ml-admins: admin}' }, /^SVC_OIDC_GROUP_PERMISSIONS is not valid JSON/],
    ['a mapping that is a list', { ...valid, SVC_OIDC_GROUP_PERMISSIONS: '["admin"]' }, /^SVC_OIDC_GROUP_PERMISSIONS must be a JSON object/],
    ['a group mapped to a string', { ...valid, SVC_OIDC_GROUP_PERMISSIONS: '{"g":"admin"}' }, /^SVC_OIDC_GROUP_PERMISSIONS: group "g" must map to a list/],
    ['an unknown permission', { ...valid, SVC_OIDC_GROUP_PERMISSIONS: '{"g":["root"]}' }, /^SVC_OIDC_GROUP_PERMISSIONS: group "g" names "root", which is not a permission/],
    ['both mapping variables', { ...valid, SVC_OIDC_GROUP_PERMISSIONS: '{}', SVC_OIDC_GROUP_PERMISSIONS_FILE: '/x' }, /^SVC_OIDC_GROUP_PERMISSIONS and SVC_OIDC_GROUP_PERMISSIONS_FILE are both set/],
    ['a mapping file that is missing', { ...valid, SVC_OIDC_GROUP_PERMISSIONS_FILE: '/no/such/file.json' }, /^SVC_OIDC_GROUP_PERMISSIONS_FILE=.* cannot be read/],
  ];
  for (const [what, env, message] of refusals) {
    it(`Should refuse ${what} with one line naming the variable`, () => {
      assert.match(errorFor(env).message, message);
    });
  }
});

describe('svc-local with a bad SVC_OIDC_GROUP_PERMISSIONS', () => {
  it('Should stop before listening with one line naming the variable, exit code 2', async () => {
    await withTempHome('svc-oidc-', async (directory) => {
      const child = spawn(process.execPath, nodeArguments(svcLocalPath, ['--port', '0']), {
        env: { PATH: process.env['PATH'] ?? '', SVC_HOME: directory, ...valid, SVC_OIDC_GROUP_PERMISSIONS: '{"ml-admins":["superuser"]}' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 2);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /^svc-local: SVC_OIDC_GROUP_PERMISSIONS: group "ml-admins" names "superuser", which is not a permission/);
    });
  });
});
