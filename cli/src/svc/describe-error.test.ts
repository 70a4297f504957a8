/**
 * How `svc` words a 429: the wait is said once, whether the server's message already names it or
 * only `Retry-After` does (seconds or an HTTP date).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { RateLimitError } from '@svc/sdk';
import { ExitCode } from '../exit-codes.js';
import { describeError, retryAfterSeconds } from './describe-error.js';

function rateLimited(message: string, retryAfter?: string): RateLimitError {
  const headers = new Headers(retryAfter === undefined ? {} : { 'retry-after': retryAfter });
  return new RateLimitError(429, { detail: message, error: { message, type: 'rate_limit_error', code: 'ip_banned' } }, headers);
}

describe('describeError on 429', () => {
  it('keeps a message that already names the wait, once (exit 5)', () => {
    const described = describeError(rateLimited('Too many failed attempts from this address; try again in 3599 seconds', '3599'));
    assert.deepEqual(described, { message: 'Too many failed attempts from this address; try again in 3599 seconds', exitCode: ExitCode.unavailable });
  });

  it('adds the wait from Retry-After when the message does not say it', () => {
    assert.equal(describeError(rateLimited('Rate limit reached.', '30')).message, 'Rate limit reached; try again in 30 seconds');
    assert.equal(describeError(rateLimited('Rate limit reached')).message, 'Rate limit reached');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    assert.equal(retryAfterSeconds('120', now), 120);
    assert.equal(retryAfterSeconds('Sat, 21 Nov 2026 10:01:30 GMT', now), 90);
    assert.equal(retryAfterSeconds('soon', now), undefined);
    assert.equal(retryAfterSeconds(null, now), undefined);
  });
});
