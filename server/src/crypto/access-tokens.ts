/**
 * Access tokens: HS256 JWTs (jose) with the algorithm pinned, `typ: at+jwt`, and `sub`, `ver`
 * (the user's token version), `jti`, `iat`, `exp` required. The scopes inside are informational for
 * clients that decode the token; the server never reads them. Verified tokens are remembered (a pure
 * function of the token and the secret) so a hot token costs a map lookup, not an HMAC.
 */
import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { systemClock, type Clock } from '../runtime/clock.js';

const ISSUER = 'svc';
const TOKEN_TYPE = 'at+jwt';
/** Leeway for clock skew between processes, well under the 60 s the requirements allow. */
const CLOCK_TOLERANCE_SECONDS = 30;
const VERIFIED_CACHE_LIMIT = 10_000;

/** What the server takes from a valid access token. */
export interface AccessClaims {
  userId: string;
  tokenVersion: number;
  expiresAt: number;
}

/** Why a token was refused. */
export type AccessTokenFailure = 'expired' | 'invalid';

/** Issues and verifies access tokens with one signing secret. */
export class AccessTokens {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;
  /**
   * Tokens verified before, keyed by their signature segment (short, so cheap to hash) and holding
   * the whole token, which must match exactly for a hit.
   */
  readonly #verified = new Map<string, { token: string; claims: AccessClaims }>();
  readonly #clock: Clock;

  /** @param clock - the time tokens are issued and checked at. */
  constructor(secret: string, ttlSeconds: number, clock: Clock = systemClock) {
    this.#key = new TextEncoder().encode(secret);
    this.#ttlSeconds = ttlSeconds;
    this.#clock = clock;
  }

  /** Seconds an access token lives. */
  get ttlSeconds(): number {
    return this.#ttlSeconds;
  }

  /** Signs a token for `userId` at `tokenVersion`. */
  issue(userId: string, tokenVersion: number, scopes: readonly string[]): Promise<string> {
    const issuedAt = Math.floor(this.#clock.now() / 1000);
    return new SignJWT({ ver: tokenVersion, scopes })
      .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.#ttlSeconds)
      .sign(this.#key);
  }

  /**
   * The verdict on a token verified before, without any work; undefined when it must be verified.
   * Lets the hot path stay synchronous.
   */
  verifyKnown(token: string): AccessClaims | { failure: AccessTokenFailure } | undefined {
    const entry = this.#verified.get(signatureOf(token));
    if (entry === undefined || entry.token !== token) return undefined;
    return entry.claims.expiresAt + CLOCK_TOLERANCE_SECONDS > this.#clock.now() / 1000 ? entry.claims : { failure: 'expired' };
  }

  /** Returns the claims of a valid token, or why it is not valid. */
  async verify(token: string): Promise<AccessClaims | { failure: AccessTokenFailure }> {
    const known = this.verifyKnown(token);
    if (known !== undefined) return known;
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        typ: TOKEN_TYPE,
        issuer: ISSUER,
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'ver'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(this.#clock.now()),
      });
      if (typeof payload.sub !== 'string' || !Number.isSafeInteger(payload['ver']) || typeof payload.exp !== 'number') {
        return { failure: 'invalid' };
      }
      const claims: AccessClaims = { userId: payload.sub, tokenVersion: payload['ver'] as number, expiresAt: payload.exp };
      if (this.#verified.size >= VERIFIED_CACHE_LIMIT) this.#verified.clear();
      this.#verified.set(signatureOf(token), { token, claims });
      return claims;
    } catch (error) {
      return { failure: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}

/** The signature segment of a compact JWT (everything after the last dot). */
function signatureOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}
