import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { AccessTokens } from './access-tokens.js';

const secret = 's'.repeat(64);
const key = new TextEncoder().encode(secret);

/** A token signed with the real secret but with chosen header and claims. */
function forge(header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'user-1', ver: 0, jti: 'j', iat: now, exp: now + 600, iss: 'svc', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...header } as { alg: string })
    .sign(key);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('access tokens', () => {
  it('issues an HS256 at+jwt token whose claims verify back', async () => {
    const tokens = new AccessTokens(secret, 1800);
    const token = await tokens.issue('user-1', 3, ['admin']);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: 'at+jwt' });
    const payload = decodeJwt(token);
    assert.equal(payload.sub, 'user-1');
    assert.equal(payload['ver'], 3);
    assert.equal((payload.exp as number) - (payload.iat as number), 1800);
    assert.equal(typeof payload.jti, 'string');
    const claims = await tokens.verify(token);
    assert.ok(!('failure' in claims));
    assert.equal(claims.userId, 'user-1');
    assert.equal(claims.tokenVersion, 3);
    assert.equal(tokens.ttlSeconds, 1800);
  });

  it('gives every token a distinct jti', async () => {
    const tokens = new AccessTokens(secret, 60);
    const [one, two] = await Promise.all([tokens.issue('u', 0, []), tokens.issue('u', 0, [])]);
    assert.notEqual(decodeJwt(one).jti, decodeJwt(two).jti);
  });

  it('refuses a token signed with another secret', async () => {
    const token = await new AccessTokens('o'.repeat(64), 60).issue('user-1', 0, []);
    assert.deepEqual(await new AccessTokens(secret, 60).verify(token), { failure: 'invalid' });
  });

  it('refuses a token with a flipped signature byte or edited claims', async () => {
    const tokens = new AccessTokens(secret, 60);
    const token = await tokens.issue('user-1', 0, []);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 0x01;
    assert.deepEqual(await tokens.verify(`${header}.${payload}.${flipped.toString('base64url')}`), { failure: 'invalid' });
    const widened = base64url({ ...decodeJwt(token), sub: 'user-2' });
    assert.deepEqual(await tokens.verify(`${header}.${widened}.${signature}`), { failure: 'invalid' });
  });

  it('does not let a verified token\'s signature vouch for edited claims (the cache compares whole tokens)', async () => {
    const tokens = new AccessTokens(secret, 60);
    const token = await tokens.issue('user-1', 0, []);
    assert.equal(((await tokens.verify(token)) as { userId: string }).userId, 'user-1');
    assert.notEqual(tokens.verifyKnown(token), undefined);
    const [header, , signature] = token.split('.') as [string, string, string];
    const widened = `${header}.${base64url({ ...decodeJwt(token), sub: 'user-2' })}.${signature}`;
    assert.equal(tokens.verifyKnown(widened), undefined);
    assert.deepEqual(await tokens.verify(widened), { failure: 'invalid' });
  });

  it('reports an expired token as expired', async () => {
    const expired = await new AccessTokens(secret, -120).issue('user-1', 0, []);
    assert.deepEqual(await new AccessTokens(secret, 60).verify(expired), { failure: 'expired' });
  });

  it('refuses alg none, other HMAC algorithms and a wrong typ', async () => {
    const tokens = new AccessTokens(secret, 60);
    const claims = decodeJwt(await tokens.issue('user-1', 0, []));
    for (const alg of ['none', 'None', 'NONE']) {
      assert.deepEqual(await tokens.verify(`${base64url({ alg, typ: 'at+jwt' })}.${base64url(claims)}.`), { failure: 'invalid' }, alg);
    }
    assert.deepEqual(await tokens.verify(await forge({ alg: 'HS512' }, {})), { failure: 'invalid' });
    assert.deepEqual(await tokens.verify(await forge({ alg: 'HS384' }, {})), { failure: 'invalid' });
    assert.deepEqual(await tokens.verify(await forge({ typ: 'JWT' }, {})), { failure: 'invalid' });
    assert.ok(!('failure' in (await tokens.verify(await forge({}, {})))), 'the forged baseline itself is valid');
  });

  it('refuses tokens missing a required claim or with a wrong issuer', async () => {
    const tokens = new AccessTokens(secret, 60);
    for (const claim of ['sub', 'exp', 'iat', 'jti', 'ver']) {
      assert.deepEqual(await tokens.verify(await forge({}, { [claim]: undefined })), { failure: 'invalid' }, claim);
    }
    assert.deepEqual(await tokens.verify(await forge({}, { ver: 'zero' })), { failure: 'invalid' });
    assert.deepEqual(await tokens.verify(await forge({}, { iss: 'someone-else' })), { failure: 'invalid' });
  });

  it('refuses garbage', async () => {
    const tokens = new AccessTokens(secret, 60);
    for (const token of ['', 'abc', 'a.b.c', 'sk-svc-whatever']) {
      assert.deepEqual(await tokens.verify(token), { failure: 'invalid' });
    }
  });
});
