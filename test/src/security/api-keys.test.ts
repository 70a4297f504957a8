/**
 * Security requirements 21–28: API-key generation, format, storage at rest, reveal, transport and
 * revocation, checked over HTTP and against the stored data (the raw bytes of the SQLite file, or
 * PostgreSQL's tables and files).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, it } from 'vitest';
import {
  adminCredentials,
  API_KEY_FORMAT,
  assertError,
  BASE62,
  contractClient,
  createKey,
  createUser,
  login,
  breakDatabase,
  ManualClock,
  setupAdmin,
  startServerProcess,
  startTestServer,
  searchStoredData,
  useServerWithAdmin,
  withCharacterChanged,
  withTempHome,
  withTestServer,
  type TestResponse,
} from '@svc/server/testing';
import { forgeJwt, jwtSecret, withDatabase } from './support.js';

/** The documented checksum: CRC32 of everything before it, as 6 base62 digits. */
function checksumOf(text: string): string {
  let value = crc32(text);
  let encoded = '';
  for (let i = 0; i < 6; i += 1) {
    encoded = BASE62[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}

/** A current-format key that was never issued, with a correct checksum. */
function unknownWellFormedKey(): string {
  let body = '';
  for (const byte of randomBytes(64)) if (byte < 248 && body.length < 43) body += BASE62[byte % 62];
  const withoutChecksum = `sk-svc-${body}`;
  return withoutChecksum + checksumOf(withoutChecksum);
}

describe('security: API keys (R21–R28)', () => {
  const ctx = useServerWithAdmin();
  const me = (token: string) => ctx.server.request('GET', '/v1/auth/me', { token });

  it('R21: 50 keys created over HTTP have the sk-svc- format, 256 random base62 bits, a valid checksum and no duplicate', async () => {
    const created = await Promise.all(Array.from({ length: 50 }, (_, i) => createKey(ctx.server, ctx.admin.accessToken, { name: `r21-${i}` })));
    const keys = created.map((c) => c.key);
    assert.equal(new Set(keys).size, keys.length, 'duplicate key');
    assert.equal(new Set(created.map((c) => c.id)).size, keys.length, 'duplicate key id');
    const symbols = new Set<string>();
    for (const { key, key_prefix, prefix } of created) {
      const match = API_KEY_FORMAT.exec(key);
      assert.ok(match, `bad format: ${key}`);
      assert.equal(match[2], checksumOf(key.slice(0, -6)), 'checksum is not CRC32 of the key in base62');
      assert.equal(key_prefix, key.slice(0, 11));
      assert.equal(prefix, key_prefix);
      for (const c of match[1] as string) symbols.add(c);
    }
    // 43 base62 characters carry 43 · log2(62) ≈ 256.03 bits.
    assert.ok(43 * Math.log2(62) >= 256);
    // 2,150 random characters cover every one of the 62 symbols (a miss has probability ~1e-13).
    assert.equal(symbols.size, 62, 'the random part does not use the whole base62 alphabet');
    // Each key authenticates as its owner (a sample, to keep the test short).
    for (const key of keys.slice(0, 3)) assert.equal((await me(key)).status, 200);
  });

  it('R22: a key with a broken checksum is refused with 401 invalid_api_key', async () => {
    const { key } = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r22' });
    assert.equal((await me(key)).status, 200);
    const broken = [
      withCharacterChanged(key, key.length - 1), // the checksum itself
      withCharacterChanged(key, key.length - 6),
      withCharacterChanged(key, 7), // the random part, so the checksum no longer matches
      withCharacterChanged(key, 30),
      key.slice(0, -1), // one character short
      key + 'A', // one character long
      key.toLowerCase(),
    ];
    for (const candidate of broken) {
      const response = await me(candidate);
      assertError(response, 401, 'invalid_api_key', `accepted ${candidate}`);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    // A well-formed key that was never issued is refused the same way (after its lookup).
    const unknown = await me(unknownWellFormedKey());
    assertError(unknown, 401, 'invalid_api_key');
  });

  it('R23: the plaintext key never appears in the raw bytes of auth.db or its WAL after creating, using and revealing keys', async () => {
    await withTempHome('svc-r23-', async (home) => {
      const own = await startTestServer({ home });
      let stopped = false;
      try {
        const owner = await setupAdmin(own);
        const keys: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          keys.push((await createKey(own, owner.accessToken, { name: `r23-${i}`, description: 'searched for in the raw file' })).key);
        }
        const listed = await own.request('GET', '/v1/admin/keys', { token: owner.accessToken });
        for (const [i, key] of keys.entries()) {
          assert.equal((await own.request('GET', '/v1/auth/me', { token: key })).status, 200);
          const id = (listed.body as { id: string; name: string }[]).find((k) => k.name === `r23-${i}`)?.id as string;
          const revealed = await own.request('GET', `/v1/admin/keys/${id}/reveal`, { token: owner.accessToken });
          assert.equal(revealed.body.key, key);
        }
        const forms = (key: string): [string, Buffer][] => [
          ['the key', Buffer.from(key)],
          ['the key without sk-svc-', Buffer.from(key.slice(7))],
          ['the key beyond its display prefix', Buffer.from(key.slice(11))],
          ['the random part', Buffer.from(key.slice(7, 50))],
          ['base64', Buffer.from(Buffer.from(key).toString('base64'))],
          ['base64url', Buffer.from(Buffer.from(key).toString('base64url'))],
          ['hex', Buffer.from(Buffer.from(key).toString('hex'))],
          ['UTF-16', Buffer.from(key, 'utf16le')],
        ];
        // SQLite: the raw bytes of auth.db and its WAL. PostgreSQL: every table dumped as text and,
        // with the run's own cluster, this database's files and the write-ahead log.
        const search = async (when: string) => {
          const needles = keys.flatMap((key) => forms(key).map(([form, bytes]) => ({ label: form, bytes })));
          const result = await searchStoredData(home, needles);
          assert.deepEqual(result.found, [], `${when}: found`);
          assert.ok(result.searched.has('database') || result.searched.has('dump'), `${when}: the stored data was not searched`);
          return result;
        };
        const { searched, filesInReach } = await search('while running');
        if (filesInReach) assert.ok(searched.has('log'), 'the write-ahead log was not searched');
        await own.close();
        stopped = true;
        await search('after shutdown');
        // The lookup digest is stored instead (and is not the key).
        const digests = await withDatabase(home, (db) => db.column<Buffer>('SELECT key_hash FROM api_keys'));
        for (const key of keys) assert.ok(digests.some((d) => d.equals(createHash('sha256').update(key).digest())));
      } finally {
        if (!stopped) await own.close();
      }
    });
  });

  it('R24: every ciphertext has its own random nonce, and ciphertexts of different keys differ', async () => {
    for (let i = 0; i < 5; i += 1) await createKey(ctx.server, ctx.admin.accessToken, { name: `r24-${i}` });
    const rows = await withDatabase(ctx.server.home, (db) => db.all<{ id: string; ciphertext: Buffer }>('SELECT id, ciphertext FROM api_keys'));
    assert.ok(rows.length >= 5);
    const nonces = new Set<string>();
    const ciphertexts = new Set<string>();
    for (const { ciphertext } of rows) {
      // format byte | 12-byte nonce | 56 bytes of ciphertext (the key's length) | 16-byte GCM tag
      assert.equal(ciphertext[0], 1);
      assert.equal(ciphertext.length, 1 + 12 + 56 + 16);
      nonces.add(ciphertext.subarray(1, 13).toString('hex'));
      ciphertexts.add(ciphertext.toString('hex'));
    }
    assert.equal(nonces.size, rows.length, 'a nonce was reused');
    assert.equal(ciphertexts.size, rows.length);
  });

  it('R24: a tampered or moved ciphertext makes reveal answer 409 api_key_undecryptable cleanly, and the key still authenticates', async () => {
    const victim = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r24-victim' });
    const donor = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r24-donor' });
    const reveal = (id: string) => ctx.server.request('GET', `/v1/admin/keys/${id}/reveal`, { token: ctx.admin.accessToken });
    assert.equal((await reveal(victim.id)).body.key, victim.key);
    const ciphertextOf = async (id: string) => (await withDatabase(ctx.server.home, (db) => db.column<Buffer>('SELECT ciphertext FROM api_keys WHERE id = ?', [id])))[0] as Buffer;
    const original = await ciphertextOf(victim.id);
    const donorCiphertext = await ciphertextOf(donor.id);
    const setCiphertext = async (value: Buffer) =>
      assert.equal(await withDatabase(ctx.server.home, (db) => db.run('UPDATE api_keys SET ciphertext = ? WHERE id = ?', [value, victim.id])), 1);

    const flipped = (index: number) => {
      const copy = Buffer.from(original);
      copy[index] = (copy[index] as number) ^ 0x80;
      return copy;
    };
    const tampered: [string, Buffer][] = [
      ['a flipped nonce byte', flipped(5)],
      ['a flipped ciphertext byte', flipped(30)],
      ['a flipped tag byte', flipped(original.length - 1)],
      ['an unknown format byte', flipped(0)],
      ['a truncated blob', original.subarray(0, 5)],
      ['an empty blob', Buffer.alloc(0)],
      ['another row\'s ciphertext (bound to its row id)', donorCiphertext],
    ];
    for (const [what, value] of tampered) {
      await setCiphertext(value);
      const response = await reveal(victim.id);
      assertError(response, 409, 'api_key_undecryptable', `${what}: ${response.text}`);
      assert.ok(!response.text.includes(donor.key), `${what}: another key's plaintext leaked`);
      assert.ok(!/\n\s+at |Error:|SQLITE/.test(response.text), `${what}: internals in the answer`);
      const auth = await me(victim.key);
      assert.equal(auth.status, 200, `${what}: the key stopped authenticating`);
    }
    await setCiphertext(original);
    assert.equal((await reveal(victim.id)).body.key, victim.key);
  });

  it('R25: secrets are compared only through constant-time primitives or as SHA-256 digests, never as plaintext', async () => {
    // Where each comparison happens (none of them is asserted by timing, which tests never do):
    // - access tokens: jose's HS256 check is WebCrypto `subtle.verify('HMAC', …)`, which Node
    //   implements with CRYPTO_memcmp (server/src/crypto/access-tokens.ts);
    // - passwords: @node-rs/argon2 `verify` recomputes the hash and compares it with the
    //   constant-time equality of the Rust `password-hash` crate (server/src/crypto/passwords.ts);
    // - API keys and refresh tokens: looked up by their SHA-256 digest in a UNIQUE index
    //   (`key_hash = ?`, `token_hash = ?`); any timing difference concerns a digest, which does not
    //   help find the secret (server/src/storage/*-repository.ts);
    // - the API-key checksum is public information (CRC32), compared with ===.
    // What can be asserted: the stored forms are exactly those digests, so no plaintext comparison
    // can happen anywhere.
    const created = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r25' });
    const tokens = await login(ctx.server, adminCredentials.username, adminCredentials.password);
    const sha256 = (text: string) => createHash('sha256').update(text).digest();
    await withDatabase(ctx.server.home, async (db) => {
      const [keyHash] = await db.column<Buffer>('SELECT key_hash FROM api_keys WHERE id = ?', [created.id]);
      assert.ok(keyHash?.equals(sha256(created.key)));
      const refreshHashes = await db.column<Buffer>('SELECT token_hash FROM refresh_tokens');
      assert.ok(refreshHashes.every((h) => h.length === 32));
      assert.ok(refreshHashes.some((h) => h.equals(sha256(tokens.refresh_token))));
      const columns = await db.column<string>({
        sqlite: "SELECT name FROM pragma_table_info('api_keys')",
        postgres: "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'api_keys'",
      });
      assert.ok(columns.includes('key_hash'), `the columns were not read: ${columns.join(',')}`);
      assert.ok(!columns.some((c) => /^(key|plaintext|secret)$/.test(c)), `a plaintext column: ${columns.join(',')}`);
    });
  });

  it('R26: reveal needs keys:manage, also through a key narrowed below it', async () => {
    const creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const own = await createKey(ctx.server, creator.accessToken, { name: 'r26-own' });
    const refused = await ctx.server.request('GET', `/v1/admin/keys/${own.id}/reveal`, { token: creator.accessToken });
    assertError(refused, 403, 'permission_denied');
    assert.ok(!refused.text.includes(own.key));

    const narrowed = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r26-narrow', permissions: ['keys:create'] });
    const viaNarrowed = await ctx.server.request('GET', `/v1/admin/keys/${own.id}/reveal`, { token: narrowed.key });
    assert.equal(viaNarrowed.status, 403);
    assert.ok(!viaNarrowed.text.includes(own.key));

    const revealed = await ctx.server.request('GET', `/v1/admin/keys/${own.id}/reveal`, { token: ctx.admin.accessToken });
    assert.equal(revealed.status, 200);
    assert.equal(revealed.body.key, own.key);
    assert.equal(revealed.headers.get('cache-control'), 'no-store');
  });

  it('R26: reveal never works across encryption keys: after a change of encryption key reveal answers 409 encryption_key_mismatch and the key still authenticates', async () => {
    await withTempHome('svc-r26-', async (home) => {
      const first = await startTestServer({ home });
      const owner = await setupAdmin(first);
      const old = await createKey(first, owner.accessToken, { name: 'r26-old' });
      await first.close();

      const otherKey = randomBytes(32).toString('hex');
      // A deliberate change of key (and back, below): each start that takes one replaces the recorded fingerprints.
      const fresh = await withTestServer({ home, env: { SVC_AUTH_ENCRYPTION_KEY: otherKey }, replaceSecretFingerprints: true }, async (second) => {
        const tokens = await login(second, adminCredentials.username, adminCredentials.password);
        const mismatch = await second.request('GET', `/v1/admin/keys/${old.id}/reveal`, { token: tokens.access_token });
        assertError(mismatch, 409, 'encryption_key_mismatch');
        assert.ok(!mismatch.text.includes(old.key));
        assert.equal((await second.request('GET', '/v1/auth/me', { token: old.key })).status, 200, 'the key stopped authenticating');
        const listed = await second.request('GET', '/v1/admin/keys', { token: tokens.access_token });
        assert.equal((listed.body as { id: string; revealable: boolean }[]).find((k) => k.id === old.id)?.revealable, false);
        const created = await createKey(second, tokens.access_token, { name: 'r26-new' });
        assert.equal(created.revealable, true);
        assert.equal((await second.request('GET', `/v1/admin/keys/${created.id}/reveal`, { token: tokens.access_token })).body.key, created.key);
        return created;
      });

      // Back on the original key file: the old key reveals again, the one made under the other key does not.
      await withTestServer({ home, replaceSecretFingerprints: true }, async (restarted) => {
        const tokens = await login(restarted, adminCredentials.username, adminCredentials.password);
        assert.equal((await restarted.request('GET', `/v1/admin/keys/${old.id}/reveal`, { token: tokens.access_token })).body.key, old.key);
        const crossed = await restarted.request('GET', `/v1/admin/keys/${fresh.id}/reveal`, { token: tokens.access_token });
        assertError(crossed, 409, 'encryption_key_mismatch');
        assert.equal((await restarted.request('GET', '/v1/auth/me', { token: fresh.key })).status, 200);
      });
    });
  });

  it('R27: credentials in the query string are refused with 400 credentials_in_query, even valid ones', async () => {
    const { key } = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r27' });
    for (const name of ['api_key', 'access_token', 'token', 'apikey', 'refresh_token', 'jwt']) {
      for (const value of [key, ctx.admin.accessToken]) {
        const alone = await ctx.server.request('GET', `/v1/auth/me?${name}=${encodeURIComponent(value)}`);
        assertError(alone, 400, 'credentials_in_query', `?${name}= alone`);
        const withHeader = await ctx.server.request('GET', `/v1/auth/me?${name}=${encodeURIComponent(value)}`, { token: value });
        assertError(withHeader, 400, 'credentials_in_query', `?${name}= with a valid header`);
      }
    }
    // Public routes and list routes refuse them too.
    for (const [method, path] of [
      ['GET', `/status?token=${key}`],
      ['GET', `/v1/admin/keys?api_key=${key}`],
      ['POST', `/v1/auth/refresh?refresh_token=${ctx.admin.refreshToken}`],
    ] as const) {
      const response = await ctx.server.request(method, path, method === 'POST' ? { body: { refresh_token: 'x' } } : {});
      assertError(response, 400, 'credentials_in_query', path);
    }
    // Another spelling is not a credential parameter, and is never read as one.
    const otherCase = await ctx.server.request('GET', `/v1/auth/me?API_KEY=${key}`);
    assertError(otherCase, 401, 'missing_credentials');
  });

  it('R28: a deleted, disabled or expired key, or one whose owner is disabled, fails on the very next request', async () => {
    const owner = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const deleted = await createKey(ctx.server, owner.accessToken, { name: 'r28-deleted' });
    const disabled = await createKey(ctx.server, owner.accessToken, { name: 'r28-disabled' });
    for (const key of [deleted, disabled]) assert.equal((await me(key.key)).status, 200);

    assert.equal((await ctx.server.request('DELETE', `/v1/admin/keys/${deleted.id}`, { token: owner.accessToken })).status, 204);
    const afterDelete = await me(deleted.key);
    assertError(afterDelete, 401, 'invalid_api_key');

    assert.equal((await ctx.server.request('PUT', `/v1/admin/keys/${disabled.id}`, { token: owner.accessToken, body: { enabled: false } })).status, 200);
    const afterDisable = await me(disabled.key);
    assertError(afterDisable, 401, 'api_key_disabled');
    assert.equal((await ctx.server.request('PUT', `/v1/admin/keys/${disabled.id}`, { token: owner.accessToken, body: { enabled: true } })).status, 200);
    assert.equal((await me(disabled.key)).status, 200);

    // The owner disabled: every key of theirs fails at once.
    assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${owner.id}`, { token: ctx.admin.accessToken, body: { enabled: false } })).status, 200);
    const ownerOff = await me(disabled.key);
    assertError(ownerOff, 401, 'account_disabled');
    // The owner deleted: the key goes with them.
    assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${owner.id}`, { token: ctx.admin.accessToken })).status, 204);
    assert.equal((await me(disabled.key)).status, 401);
  });

  it('R28: an expired key fails on its first request after expires_at', async () => {
    const clock = new ManualClock();
    await withTestServer({ clock }, async (server) => {
      const admin = await setupAdmin(server);
      const meThere = (token: string) => server.request('GET', '/v1/auth/me', { token });
      const expiresAt = new Date(clock.now() + 1500);
      const expiring = await createKey(server, admin.accessToken, { name: 'r28-expiring', expires_at: expiresAt.toISOString() });
      assert.equal((await meThere(expiring.key)).status, 200);
      clock.set(expiresAt.getTime() - 1);
      assert.equal((await meThere(expiring.key)).status, 200, 'the key was refused before its expiry');
      clock.set(expiresAt.getTime());
      assertError(await meThere(expiring.key), 401, 'api_key_expired', 'the key kept working past expires_at');
      // Once expired it stays refused, and an expiry in the past cannot be set.
      clock.advance(60_000);
      assert.equal((await meThere(expiring.key)).status, 401);
      const past = await server.request('POST', '/v1/admin/keys', { token: admin.accessToken, body: { name: 'r28-past', expires_at: new Date(clock.now() - 1000).toISOString() } });
      assert.equal(past.status, 400);
    });
  });

  it('R28: a key revoked through one process fails on the very next request to another process sharing the home', async () => {
    await withTempHome('svc-r28-', async (home) => {
      const a = await startServerProcess({ SVC_HOME: home });
      try {
        const b = await startServerProcess({ SVC_HOME: home });
        try {
          const clientA = contractClient(a.baseUrl);
          const clientB = contractClient(b.baseUrl);
          const owner = await setupAdmin(clientA);
          const key = await createKey(clientA, owner.accessToken, { name: 'r28-shared' });
          // B authenticates the key (and may cache it).
          assert.equal((await clientB.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
          assert.equal((await clientB.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
          assert.equal((await clientA.request('PUT', `/v1/admin/keys/${key.id}`, { token: owner.accessToken, body: { enabled: false } })).status, 200);
          const disabled = await clientB.request('GET', '/v1/auth/me', { token: key.key });
          assertError(disabled, 401, 'api_key_disabled');
          assert.equal((await clientA.request('PUT', `/v1/admin/keys/${key.id}`, { token: owner.accessToken, body: { enabled: true } })).status, 200);
          assert.equal((await clientB.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
          assert.equal((await clientA.request('DELETE', `/v1/admin/keys/${key.id}`, { token: owner.accessToken })).status, 204);
          assert.equal((await clientB.request('GET', '/v1/auth/me', { token: key.key })).status, 401);
        } finally {
          await b.stop();
        }
      } finally {
        await a.stop();
      }
    });
  });
});

describe('security: malformed keys are refused before any database lookup (R22)', () => {
  // How this proves "before any database lookup": the database of a running server is taken away
  // (SQLite: its files overwritten with garbage, so every statement fails with SQLITE_NOTADB;
  // PostgreSQL: the database refuses connections and the open ones are ended), so every statement
  // the server runs fails (503). A key
  // with a broken checksum, and a token with a bad signature, still get their 401 — nothing was
  // read from the database for them — while well-formed credentials answer 503 because they did
  // need the database (fail closed, R34).
  it('R22: with the database unreadable, a broken-checksum key still gets 401 while a well-formed key gets 503', async () => {
    await withTempHome('svc-r22-', async (home) => {
      const child = await startServerProcess({ SVC_HOME: home });
      try {
        const client = contractClient(child.baseUrl);
        const owner = await setupAdmin(client);
        const { key } = await createKey(client, owner.accessToken, { name: 'r22-db' });
        assert.equal((await client.request('GET', '/v1/auth/me', { token: key })).status, 200);
        const badSignature = forgeJwt({ alg: 'HS256', typ: 'at+jwt' }, { sub: owner.id, ver: 0, exp: Math.floor(Date.now() / 1000) + 600 }, 'not the secret');
        assert.ok((await jwtSecret(home)).length >= 64);

        await breakDatabase(home);
        const broken = withCharacterChanged(key, key.length - 1);
        const malformed = await client.request('GET', '/v1/auth/me', { token: broken });
        assertError(malformed, 401, 'invalid_api_key', `a broken-checksum key needed the database: ${malformed.text}`);
        const forged = await client.request('GET', '/v1/auth/me', { token: badSignature });
        assertError(forged, 401, 'invalid_token', `a badly signed token needed the database: ${forged.text}`);

        for (const token of [key, unknownWellFormedKey(), owner.accessToken]) {
          const response = await client.request('GET', '/v1/auth/me', { token });
          assert.ok(response.status >= 500, `expected 5xx with the database unreadable, got ${response.status}`);
        }
      } finally {
        await child.kill();
      }
    });
  });
});
