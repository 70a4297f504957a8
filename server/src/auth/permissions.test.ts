import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import {
  allPermissions,
  holds,
  holdsAny,
  legacyPermissionMap,
  missingPermissions,
  narrowPermissions,
  normalizePermissions,
  sortedPermissions,
  type Permission,
} from './permissions.js';

const set = (...permissions: Permission[]) => new Set<Permission>(permissions);

describe('permission names', () => {
  it('lists the spec table in order, admin last', () => {
    assert.equal(allPermissions.length, 15, 'the spec table and usage:read_all (issue 17)');
    assert.equal(allPermissions[0], 'models:list');
    assert.equal(allPermissions.at(-1), 'admin');
  });

  it('maps the deprecated legacy names to their replacements', () => {
    assert.deepEqual(legacyPermissionMap, {
      'models:start': 'models:write',
      'models:stop': 'models:write',
      'models:add': 'models:register',
      'models:unregister': 'models:register',
    });
  });
});

describe('normalizePermissions', () => {
  it('maps legacy names, merges duplicates and reports that a legacy name was used', () => {
    assert.deepEqual(normalizePermissions(['models:stop', 'models:start', 'models:write', 'models:unregister', 'models:add']), {
      permissions: ['models:write', 'models:register'],
      usedLegacyNames: true,
    });
  });

  it('keeps current names in the spec order without flagging them', () => {
    assert.deepEqual(normalizePermissions(['admin', 'keys:create', 'models:list', 'keys:create']), {
      permissions: ['models:list', 'keys:create', 'admin'],
      usedLegacyNames: false,
    });
    assert.deepEqual(normalizePermissions([]), { permissions: [], usedLegacyNames: false });
  });
});

describe('holds and holdsAny', () => {
  it('grants a permission held directly or through admin', () => {
    assert.equal(holds(set('models:list'), 'models:list'), true);
    assert.equal(holds(set('models:list'), 'models:read'), false);
    for (const permission of allPermissions) assert.equal(holds(set('admin'), permission), true, permission);
    assert.equal(holds(set(), 'models:list'), false);
  });

  it('needs one of the listed permissions, and nothing for an empty list', () => {
    assert.equal(holdsAny(set('keys:manage'), ['keys:create', 'keys:manage']), true);
    assert.equal(holdsAny(set('models:list'), ['keys:create', 'keys:manage']), false);
    assert.equal(holdsAny(set(), []), true);
    assert.equal(holdsAny(set('admin'), ['users:manage']), true);
  });

  it('names exactly the permissions missing from a set', () => {
    assert.deepEqual(missingPermissions(set('users:manage'), ['users:manage', 'admin', 'models:list']), ['admin', 'models:list']);
    assert.deepEqual(missingPermissions(set('admin'), ['users:manage', 'admin']), []);
  });
});

describe('narrowPermissions', () => {
  it('carries the owner\'s permissions when the key names none', () => {
    const owner = set('models:list', 'keys:create');
    assert.equal(narrowPermissions(owner, null), owner);
  });

  it('narrows to the key\'s list, dropping what the owner does not hold', () => {
    assert.deepEqual(sortedPermissions(narrowPermissions(set('models:list', 'models:read'), ['models:list', 'users:manage'])), ['models:list']);
    assert.deepEqual(sortedPermissions(narrowPermissions(set('admin'), ['models:list'])), ['models:list']);
    assert.deepEqual(sortedPermissions(narrowPermissions(set('admin'), [])), []);
  });

  it('never lets a key with admin exceed its owner', () => {
    assert.deepEqual(sortedPermissions(narrowPermissions(set('models:list'), ['admin'])), ['models:list']);
    assert.deepEqual(sortedPermissions(narrowPermissions(set('admin'), ['admin'])), ['admin']);
  });
});
