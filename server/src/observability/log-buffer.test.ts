import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { LogBuffer, LogRedactor, LogSink } from './log-buffer.js';

describe('LogBuffer', () => {
  it('keeps the newest lines up to its capacity, oldest first', () => {
    const buffer = new LogBuffer(3);
    for (const n of [1, 2, 3, 4, 5]) buffer.push({ time: '', level: 'info', message: String(n) });
    assert.deepEqual(buffer.newest(10).map((l) => l.message), ['3', '4', '5']);
    assert.deepEqual(buffer.newest(2).map((l) => l.message), ['4', '5']);
  });
});

describe('LogRedactor', () => {
  it('redacts API keys, JWTs, refresh tokens, bearer credentials and known secrets', () => {
    const redactor = new LogRedactor();
    redactor.addSecret('my-upstream-secret');
    const text = redactor.redact(
      'key sk-svc-AbCdEfGh0123456789AbCdEfGh0123456789AbCdEfGh012345 legacy sk-abcdefghij123 ' +
        'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln refresh svc_rt_abc-DEF_123 Bearer whatever upstream my-upstream-secret',
    );
    for (const secret of ['AbCdEfGh0123', 'abcdefghij123', 'eyJzdWIiOiIxIn0', 'abc-DEF_123', 'whatever', 'my-upstream-secret']) assert.ok(!text.includes(secret), `${secret} in ${text}`);
  });
});

describe('LogSink', () => {
  it('blanks secret-named fields of a JSON line and echoes the redacted line', () => {
    const echoed: string[] = [];
    const sink = new LogSink({ echo: { write: (text: string) => echoed.push(text) } });
    sink.write(`${JSON.stringify({ level: 40, time: 0, msg: 'login failed', body: { username: 'al', password: 'p4ssw0rd-long' } })}\n`);
    assert.equal(echoed.length, 1);
    assert.ok(!echoed[0]?.includes('p4ssw0rd-long'));
    assert.deepEqual(sink.buffer.newest(1), [{ time: '1970-01-01T00:00:00.000Z', level: 'warn', message: 'login failed' }]);
  });
});
