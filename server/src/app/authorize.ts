/**
 * Pipeline step 5: a route's `onRequest` hook: authenticates the caller and checks the operation's
 * permissions, counting guessed credentials towards bans. Callback style, so a request whose
 * credential was seen before is authorised without a promise (on SQLite, whose change feed answers
 * synchronously).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerCredential, RevokedCredentialError, type Authenticator } from '../auth/authenticator.js';
import { holdsAny, type Permission } from '../auth/permissions.js';
import { anonymousPrincipal, type Principal } from '../auth/principal.js';
import { credentialId } from '../brute-force/credential-id.js';
import type { OperationSpec } from '../contract/contract.js';
import { apiKeyDigest } from '../crypto/api-key-format.js';
import { ApiError } from '../errors.js';
import { publishRequestAuthorised } from '../observability/diagnostics.js';
import type { Services } from '../services/services.js';
import { bannedError } from './guards.js';

/** Failed credentials that count towards a ban: guesses, not a real credential that expired or was disabled. */
const countedCredentialFailures = new Set(['invalid_api_key', 'invalid_token']);
/** Failures of a key that exists, counted only against keys with their own threshold. */
const knownKeyFailures = new Set(['api_key_disabled', 'api_key_expired']);

/**
 * What a session whose account must change its password may do (besides the public routes such as
 * logout): read who it is and change the password (issue 14, H10).
 */
const passwordChangeOperations = new Set(['getMe', 'changeOwnPassword']);

/**
 * The public operations that try a password: a ban on the client's address refuses them. Other
 * public operations (health, setup status, refreshing or ending a session with a 256-bit refresh
 * token) are no guesses and stay open, so a banned address keeps its live sessions.
 */
const guessingOperations = new Set([
  'login',
  'loginLegacy',
  'startBrowserSession',
  'createFirstAdmin',
  // Single sign-on: a guessed state, CLI code or device code is a guess too (docs/sso.md).
  'completeOidcLogin',
  'exchangeOidcCliCode',
  'completeOidcDeviceLogin',
]);

/** The caller of a public route while authentication is on: nobody, holding nothing. */
export const unauthenticated: Principal = Object.freeze({ authType: 'none', user: null, apiKey: null, permissions: new Set<Permission>() });

/** The `onRequest` hook of the operation `spec`. */
export function authorize(spec: OperationSpec, services: Pick<Services, 'config' | 'bruteForce'>, authenticator: Authenticator) {
  const { config, bruteForce } = services;
  /** Sets the request's principal; answers the 403 when it lacks the operation's permissions. */
  const admit = (request: FastifyRequest, principal: Principal): ApiError | undefined => {
    request.principal = principal;
    if (principal.authType === 'jwt' && principal.user?.mustChangePassword === true && !passwordChangeOperations.has(spec.operationId)) {
      return new ApiError('password_change_required', 'This account must change its password first: PUT /v1/auth/me/password, then continue');
    }
    const admitted = holdsAny(principal.permissions, spec.requiredPermissions);
    publishRequestAuthorised({ request, principal, admitted });
    if (admitted) return undefined;
    return new ApiError('permission_denied', `Missing permission: ${spec.requiredPermissions.join(' or ')}`);
  };
  /**
   * Counts a guessed credential against the client IP and the (IP, credential) pair, and a failure
   * of a known key against its own threshold; resolves once counted (so the next request sees the
   * count), never rejects. A credential the server revoked itself is no guess and is not counted.
   */
  const countFailure = async (request: FastifyRequest, error: unknown): Promise<void> => {
    const credential = bearerCredential(request.headers.authorization);
    if (credential === null) return;
    request.audit.attemptedAuthType = credential.startsWith('sk-') ? 'api_key' : 'jwt';
    if (error instanceof ApiError && countedCredentialFailures.has(error.code) && !(error instanceof RevokedCredentialError)) {
      const keyId = credentialId(credential);
      request.audit.target ??= keyId;
      try {
        await bruteForce.recordCredentialFailure(request.audit.clientIp, keyId);
      } catch (countingError) {
        // The answer stays the 401 the credential earned (R22: a malformed key needs no database).
        request.log.error({ err: countingError }, 'could not count a failed credential');
      }
    } else if (error instanceof ApiError && knownKeyFailures.has(error.code)) {
      try {
        await bruteForce.recordKnownKeyFailure(request.audit.clientIp, credentialId(credential), apiKeyDigest(credential));
      } catch (countingError) {
        request.log.error({ err: countingError }, 'could not count a failed API key');
      }
    }
  };
  /** A credential that fails from a banned address gets the ban's 429, a live one passes. */
  const refuse = (request: FastifyRequest, error: unknown, done: (error?: Error) => void): void => {
    const ipBan = request.ipBan;
    void countFailure(request, error).then(() => done(ipBan !== null && error instanceof ApiError && error.status === 401 ? bannedError(ipBan) : (error as Error)));
  };
  return function authorizeRequest(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    request.audit.operation = spec;
    if (!config.authEnabled) {
      request.principal = anonymousPrincipal;
      return done();
    }
    const ipBan = request.ipBan;
    if (spec.isPublic) return done(ipBan !== null && guessingOperations.has(spec.operationId) ? bannedError(ipBan) : undefined);
    const header = request.headers.authorization;
    // The global guard brought the ban list up to date for this request.
    if (bruteForce.hasKeyBans()) {
      const credential = bearerCredential(header);
      const ban = credential === null ? null : bruteForce.keyBan(request.audit.clientIp, credentialId(credential));
      if (ban !== null) return done(bannedError(ban));
    }
    let principal: Principal | Promise<Principal>;
    try {
      principal = authenticator.authenticate(header, request.epochs ?? undefined);
    } catch (error) {
      return refuse(request, error, done);
    }
    if (principal instanceof Promise) {
      principal.then(
        (resolved) => done(admit(request, resolved)),
        (error: unknown) => refuse(request, error, done),
      );
      return;
    }
    done(admit(request, principal));
  };
}
