import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { OutgoingRequest } from './outgoing-request.js';

describe('OutgoingRequest', () => {
  it('Should hand ky the method, the very headers the middleware set, the body and the other options', () => {
    const request = new OutgoingRequest(new URL('http://svc.test/v1/admin/keys'), {
      method: 'post',
      headers: new Headers({ 'content-type': 'application/json' }),
      body: '{"name":"ci"}',
      redirect: 'manual',
    });
    request.headers.set('authorization', 'Bearer sk-svc-abc');
    assert.equal(request.url, 'http://svc.test/v1/admin/keys');
    assert.equal(request.method, 'POST');
    assert.equal(request.init.method, 'POST');
    assert.equal(request.init.headers, request.headers);
    assert.equal(new Headers(request.init.headers).get('authorization'), 'Bearer sk-svc-abc');
    assert.equal(request.init.body, '{"name":"ci"}');
    assert.equal(request.init.redirect, 'manual');
  });

  it('Should pass the caller\'s signal on, and no signal at all when the call has none', () => {
    const controller = new AbortController();
    const withSignal = new OutgoingRequest('http://svc.test/v1/auth/me', { signal: controller.signal });
    assert.equal(withSignal.signal, controller.signal);
    assert.equal(withSignal.init.signal, controller.signal);
    const without = new OutgoingRequest('http://svc.test/v1/auth/me', { headers: { accept: 'application/json' } });
    assert.equal(without.signal, undefined);
    assert.equal('signal' in without.init, false);
    assert.equal(without.method, 'GET');
    assert.equal(without.headers.get('accept'), 'application/json');
  });
});
