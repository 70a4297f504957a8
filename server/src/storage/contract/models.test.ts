/** Storage contract: launched models and registered families, on every backend. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, newFamily, newModel } from './fixtures.js';

describe.each(storageBackends)('storage contract ($name): models and families', (backend) => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await backend.open();
  });
  afterEach(() => under.destroy());

  it("stores a model, answers 'uid_taken' for its uid, lists oldest first, counts by family and deletes", async () => {
    const { models } = under.storage;
    const upstream = newModel({
      engine: 'upstream',
      modelType: 'embedding',
      abilities: ['embed'],
      dimensions: 384,
      upstream: { baseUrl: 'http://upstream:8000/v1', model: 'bge', keyCiphertext: Buffer.from('sealed'), keyEncryptionId: 'fingerprint-1' },
      launchedBy: 'user-1',
      createdAt: NOW + 1,
    });
    const builtin = newModel({ createdAt: NOW });
    assert.equal(await models.insert(upstream), 'created');
    assert.equal(await models.insert(builtin), 'created');
    assert.equal(await models.insert({ ...builtin, modelName: 'other' }), 'uid_taken');
    assert.deepEqual(await models.findByUid(upstream.uid), upstream);
    assert.deepEqual(await models.findByUid(builtin.uid), builtin);
    assert.equal(await models.findByUid('missing\u0000'), null);
    assert.deepEqual((await models.list()).map((model) => model.uid), [builtin.uid, upstream.uid]);
    assert.equal(await models.countByFamily('LLM', 'echo'), 1);
    assert.equal(await models.delete(builtin.uid), true);
    assert.equal(await models.delete(builtin.uid), false);
    assert.equal(await models.countByFamily('LLM', 'echo'), 0);
  });

  it("stores a family with its definition byte for byte, answers 'name_taken', lists a type by name and deletes", async () => {
    const { families } = under.storage;
    const zeta = newFamily({ modelName: 'zeta' });
    const alpha = newFamily({ modelName: 'alpha', dimensions: 8, modelType: 'LLM' });
    assert.equal(await families.insert(zeta), 'created');
    assert.equal(await families.insert(alpha), 'created');
    assert.equal(await families.insert({ ...zeta, description: 'again' }), 'name_taken');
    assert.deepEqual(await families.find('LLM', 'zeta'), zeta);
    assert.equal(await families.find('embedding', 'zeta'), null);
    assert.deepEqual((await families.listByType('LLM')).map((family) => family.modelName), ['alpha', 'zeta']);
    assert.equal(await families.delete('LLM', 'zeta'), true);
    assert.equal(await families.delete('LLM', 'zeta'), false);
  });

  it('a launch and an unregistration of its family racing on two hosts never leave a model of a deleted family', async () => {
    const other = await under.another();
    for (let round = 0; round < 5; round += 1) {
      const family = newFamily();
      await under.storage.families.insert(family);
      const model = newModel({ modelName: family.modelName });
      const launch = under.storage.transaction(async (tx) => {
        if ((await tx.families.find(family.modelType, family.modelName, { lock: 'share' })) === null) return 'family_missing';
        return tx.models.insert(model);
      });
      const unregister = other.transaction(async (tx) => {
        if ((await tx.families.find(family.modelType, family.modelName, { lock: 'update' })) === null) return 'missing';
        if ((await tx.models.countByFamily(family.modelType, family.modelName)) > 0) return 'in_use';
        await tx.families.delete(family.modelType, family.modelName);
        return 'deleted';
      });
      const outcome = [await launch, await unregister];
      assert.ok(
        (outcome[0] === 'created' && outcome[1] === 'in_use') || (outcome[0] === 'family_missing' && outcome[1] === 'deleted'),
        JSON.stringify(outcome),
      );
      const modelExists = (await under.storage.models.findByUid(model.uid)) !== null;
      const familyExists = (await under.storage.families.find(family.modelType, family.modelName)) !== null;
      assert.ok(!modelExists || familyExists, 'a model of a deleted family');
    }
  });
});
