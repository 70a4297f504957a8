import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { claimAt, groupsOf, mappedPermissions, permissionChanges } from './group-mapping.js';

const config = { groupPermissions: { 'ml-admins': ['admin'], 'ml-users': ['keys:create', 'models:read'] } as const };

describe('group mapping', () => {
  it('Should read a nested claim by its dotted path, and nothing through inherited properties', () => {
    const claims = { realm_access: { roles: ['ml-users'] }, groups: 'ml-admins' };
    assert.deepEqual(claimAt(claims, 'realm_access.roles'), ['ml-users']);
    assert.equal(claimAt(claims, 'realm_access.missing'), undefined);
    assert.equal(claimAt(claims, 'groups.length'), undefined);
    assert.equal(claimAt(claims, 'constructor'), undefined);
  });

  it('Should take a string or a list of strings as groups, and ignore anything else', () => {
    assert.deepEqual(groupsOf({ groups: 'ml-admins' }, 'groups'), ['ml-admins']);
    assert.deepEqual(groupsOf({ groups: ['a', 1, null, 'b'] }, 'groups'), ['a', 'b']);
    assert.deepEqual(groupsOf({ groups: { a: true } }, 'groups'), []);
    assert.deepEqual(groupsOf({}, 'groups'), []);
  });

  it('Should grant the union of the mapped groups, in the spec order, and nothing for unmapped or inherited names', () => {
    assert.deepEqual(mappedPermissions(config, ['ml-users', 'unmapped', 'toString', '__proto__']), ['models:read', 'keys:create']);
    assert.deepEqual(mappedPermissions(config, ['ml-users', 'ml-admins']), ['models:read', 'keys:create', 'admin']);
    assert.deepEqual(mappedPermissions(config, []), []);
  });

  it('Should name what a new mapping grants and revokes', () => {
    assert.deepEqual(permissionChanges(['admin', 'models:read'], ['models:read', 'keys:create']), { granted: ['keys:create'], revoked: ['admin'] });
  });
});
