/**
 * What the audit trail stores for a failed login whose username matches no account: people type
 * passwords into the username field, so the text itself is never stored. A keyed digest (HMAC-SHA256
 * under a key derived from the server's signing secret) still lets an administrator see that one
 * unknown name was tried many times, and check a name they suspect by asking for its marker, while
 * it cannot be read back or checked against a password list without the secret (issue 14, H12).
 */
import { createHmac } from 'node:crypto';

/** The prefix of every marker, so a marker is never mistaken for a username. */
export const UNKNOWN_USERNAME_PREFIX = 'unknown-user:';

/** Derives markers for unknown usernames under one secret. */
export class UsernameMarker {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = createHmac('sha256', secret).update('svc unknown-username marker v1').digest();
  }

  /**
   * The marker of `username`: `unknown-user:` and 16 hex digits of its keyed digest.
   *
   * @example marker.of('hunter2hunter2') // 'unknown-user:3f9c…'
   */
  of(username: string): string {
    return UNKNOWN_USERNAME_PREFIX + createHmac('sha256', this.#key).update(username, 'utf8').digest('hex').slice(0, 16);
  }
}
