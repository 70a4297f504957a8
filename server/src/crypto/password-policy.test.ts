import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ApiError, type ErrorCode } from '../errors.js';
import { assertPasswordAcceptable } from './password-policy.js';

function refusal(password: string, minLength = 15, username: string | null = 'alice'): ApiError {
  try {
    assertPasswordAcceptable(password, minLength, username, 'password');
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(password)}`);
}

function assertRefused(password: string, code: ErrorCode, minLength = 15, username: string | null = 'alice'): void {
  const error = refusal(password, minLength, username);
  assert.equal(error.code, code);
  assert.equal(error.status, 400);
  assert.equal(error.param, 'password');
}

function assertAccepted(password: string, minLength = 15, username: string | null = 'alice'): void {
  assert.doesNotThrow(() => assertPasswordAcceptable(password, minLength, username, 'password'));
}

describe('password policy', () => {
  it('needs 15 characters by default: 14 is refused, 15 accepted', () => {
    assertRefused('fourteen chars', 'password_too_short');
    assertAccepted('fifteen chars!!');
  });

  it('follows the configured minimum', () => {
    assertAccepted('eight ch', 8);
    assertRefused('seven c', 'password_too_short', 8);
    assertRefused('a'.repeat(20) + 'b'.repeat(43), 'password_too_short', 64);
  });

  it('accepts up to 1024 characters and refuses 1025', () => {
    const prefix = 'long passphrase ';
    assertAccepted(prefix + 'z'.repeat(1024 - prefix.length));
    assertRefused(prefix + 'z'.repeat(1025 - prefix.length), 'password_too_long');
  });

  it('refuses common passwords, the username itself, and one repeated character, saying why', () => {
    const common = refusal('qwertyuiopasdfghjkl');
    assert.equal(common.code, 'password_too_common');
    assert.match(common.message, /common/);
    assertRefused('PasswordPassword', 'password_too_common');
    assertRefused('alice-the-admin-user', 'password_too_common', 15, 'Alice-The-Admin-User');
    assertRefused('a'.repeat(30), 'password_too_common');
  });

  it('has no composition rules: lowercase letters and spaces alone are fine', () => {
    assertAccepted('correct horse battery staple');
  });

  it('counts code points, not UTF-16 units: 14 emoji and one letter make 15', () => {
    const emoji = '\u{1F600}\u{1F601}\u{1F602}\u{1F603}\u{1F604}\u{1F605}\u{1F606}\u{1F607}\u{1F608}\u{1F609}\u{1F60A}\u{1F60B}\u{1F60C}\u{1F60D}';
    assert.equal([...emoji].length, 14);
    assert.equal(emoji.length, 28);
    assertAccepted(emoji + 'x');
    assertRefused(emoji, 'password_too_short');
  });

  it('reports the request field it was given', () => {
    try {
      assertPasswordAcceptable('short', 15, null, 'new_password');
      assert.fail('accepted a short password');
    } catch (error) {
      assert.ok(error instanceof ApiError);
      assert.equal(error.param, 'new_password');
    }
  });
});
