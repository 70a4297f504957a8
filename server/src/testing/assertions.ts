/**
 * Assertions over answers of the test client.
 */
import assert from 'node:assert/strict';
import type { TestResponse } from './test-server.js';

/** The `Deprecation` header the server sends when a request used legacy permission names. */
const LEGACY_NAMES_DEPRECATION = '@1735689600';

/**
 * Asserts that `response` has status `status` and the error code `code` in its error body.
 *
 * @param message - the failure message of both checks; by default the status check shows the
 * response text.
 */
export function assertError(response: TestResponse, status: number, code: string, message?: string): void {
  assert.equal(response.status, status, message ?? response.text);
  assert.equal(response.body?.error?.code, code, message);
}

/** Asserts that `response` carries the `Deprecation` header of a request that used legacy permission names. */
export function assertLegacyDeprecation(response: TestResponse): void {
  assert.equal(response.headers.get('deprecation'), LEGACY_NAMES_DEPRECATION);
}
