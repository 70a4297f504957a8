import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { categoryOf, requestEntry, type AuditContext } from './request-audit.js';

/** When the fake calls are recorded (the app passes its clock's time). */
const RECORDED_AT = 1_750_000_000_000;

function fakeCall(audit: AuditContext, statusCode: number, url = '/v1/chat/completions?stream=true', params: object = {}): [FastifyRequest, FastifyReply, number] {
  const request = { audit, principal: null, url, method: 'POST', params, id: 'req-1' } as unknown as FastifyRequest;
  const reply = { statusCode, elapsedTime: 12.34567 } as unknown as FastifyReply;
  return [request, reply, RECORDED_AT];
}

describe('requestEntry', () => {
  it('records the model a handler attached, the operation, the target and the path without its query', () => {
    const audit: AuditContext = {
      clientIp: '203.0.113.9',
      operation: { operationId: 'createChatCompletion', path: '/v1/chat/completions' },
      model: { id: 'qwen-chat', name: 'qwen2.5-instruct', type: 'LLM' },
      target: 'qwen-chat',
    };
    const entry = requestEntry(...fakeCall(audit, 200));
    assert.equal(entry.timestamp, RECORDED_AT, 'the time the app gave');
    assert.deepEqual(
      [entry.model_id, entry.model_name, entry.model_type, entry.action, entry.route, entry.endpoint, entry.target, entry.category],
      ['qwen-chat', 'qwen2.5-instruct', 'LLM', 'createChatCompletion', '/v1/chat/completions', '/v1/chat/completions', 'qwen-chat', 'inference'],
    );
    assert.equal(entry.status, 'success');
    assert.equal(entry.latency_ms, 12.346);
    assert.equal(entry.client_ip, '203.0.113.9');
  });

  it('targets the path parameters, joined in order, when the handler named no target', () => {
    const call = (params: object) => requestEntry(...fakeCall({ clientIp: '127.0.0.1' }, 200, '/v1/admin/users/u1/keys/k1', params)).target;
    assert.equal(call({ user_id: 'u1', key_id: 'k1' }), 'u1/k1');
    assert.equal(call({ user_id: 'u1' }), 'u1');
    assert.equal(call({}), null);
    assert.equal(call({ user_id: 'eve\r\nx' }), 'eve\\u000d\\u000ax', 'cleaned like every text field');
  });

  it('maps error codes to the reference statuses and keeps the code as the reason', () => {
    const cases: [AuditContext['errorCode'], number, string][] = [
      ['invalid_credentials', 401, 'login_failed'],
      ['ip_banned', 429, 'ip_banned'],
      ['invalid_api_key', 401, 'invalid_key'],
      ['permission_denied', 403, 'denied'],
      ['missing_credentials', 401, 'no_credentials'],
      ['user_not_found', 404, 'error'],
    ];
    for (const [code, status, expected] of cases) {
      const entry = requestEntry(...fakeCall({ clientIp: '127.0.0.1', ...(code === undefined ? {} : { errorCode: code }) }, status));
      assert.equal(entry.status, expected, String(code));
      assert.equal(entry.reason, code);
      assert.equal(entry.action, 'unknown_route');
    }
  });

  it('files routes under auth, admin, system or inference', () => {
    assert.equal(categoryOf('/v1/auth/login'), 'auth');
    assert.equal(categoryOf('/token'), 'auth');
    assert.equal(categoryOf('/v1/admin/setup'), 'auth');
    assert.equal(categoryOf('/v1/admin/users/{user_id}'), 'admin');
    assert.equal(categoryOf('/v1/audit/search'), 'admin');
    assert.equal(categoryOf('/status'), 'system');
    assert.equal(categoryOf('/v1/models'), 'inference');
  });
});
