/**
 * Storage contract: the secret fingerprints (`Storage.secretFingerprints`), on every backend. The
 * first claim records; later claims, from any process or host, answer the recorded one; processes
 * claiming together agree on one; `replace` is the only way to change it.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW } from './fixtures.js';

describe.each(storageBackends)('secret fingerprints on $name', (backend) => {
  let under: StorageUnderTest;

  beforeEach(async () => {
    under = await backend.open();
  });

  afterEach(async () => {
    await under?.destroy();
  });

  it('Should record the first claim and answer it to every later one, from any process', async () => {
    assert.equal(await under.storage.secretFingerprints.claim('jwt_signing', 'first', NOW), 'first');
    const other = await under.another();
    assert.equal(await other.secretFingerprints.claim('jwt_signing', 'second', NOW + 1), 'first');
    assert.equal(await under.storage.secretFingerprints.claim('jwt_signing', 'first', NOW + 2), 'first');
  });

  it('Should keep each secret apart', async () => {
    assert.equal(await under.storage.secretFingerprints.claim('jwt_signing', 'signing', NOW), 'signing');
    assert.equal(await under.storage.secretFingerprints.claim('encryption', 'encryption', NOW), 'encryption');
    assert.equal(await under.storage.secretFingerprints.claim('jwt_signing', 'other', NOW), 'signing');
  });

  it('Should agree on one fingerprint when processes claim together', async () => {
    const storages = [under.storage, await under.another(), await under.another()];
    const answers = await Promise.all(storages.flatMap((storage, index) => [0, 1, 2].map((round) => storage.secretFingerprints.claim('encryption', `claim-${index}-${round}`, NOW))));
    assert.equal(new Set(answers).size, 1, `answers: ${answers.join(', ')}`);
  });

  it('Should change the recorded fingerprint only through replace', async () => {
    await under.storage.secretFingerprints.claim('encryption', 'old', NOW);
    await under.storage.secretFingerprints.replace('encryption', 'new', NOW + 1);
    const other = await under.another();
    assert.equal(await other.secretFingerprints.claim('encryption', 'old', NOW + 2), 'new');
    await other.secretFingerprints.replace('jwt_signing', 'fresh', NOW + 3);
    assert.equal(await under.storage.secretFingerprints.claim('jwt_signing', 'other', NOW + 4), 'fresh');
  });
});
