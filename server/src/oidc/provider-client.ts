/**
 * The back channel to the OpenID provider: its discovery document, its signing keys (JWKS, read
 * again when a token names a key not seen before, so key rotation needs no restart) and the token
 * endpoint. ID tokens are accepted only from the token endpoint and only after
 * {@link ProviderClient.verifyIdToken} checked signature, issuer, audience, expiry and nonce.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcConfig } from '../config.js';
import { ApiError } from '../errors.js';

/** The fields of the discovery document svc uses (OpenID Connect Discovery 1.0). */
export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
  device_authorization_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
  id_token_signing_alg_values_supported?: string[];
  code_challenge_methods_supported?: string[];
}

/** The callback URL of this service: `{redirect base}/v1/auth/oidc/callback`. */
export function callbackUrl(config: OidcConfig): string {
  return `${config.redirectBaseUrl}/v1/auth/oidc/callback`;
}

/** How long a discovery document is trusted before it is read again. */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
/** How long one request to the provider may take. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** Signature algorithms accepted on ID tokens: asymmetric only, never `none` or a MAC. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

const unreachable = (what: string) => new ApiError('oidc_provider_unreachable', `The identity provider could not be reached (${what}); try again later`);
const refused = (why: string) => new ApiError('oidc_login_failed', `Single sign-on failed: ${why}`);

/** The provider's answer to a device authorization request (RFC 8628 §3.2). */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

/** The ID token of a token endpoint answer. */
function idTokenOf(body: unknown): string {
  const idToken = (body as { id_token?: unknown } | null)?.id_token;
  if (typeof idToken !== 'string') throw refused('the provider answered no ID token (is the openid scope granted?)');
  return idToken;
}

/** A discovery document as read, with the key set of its `jwks_uri`. */
interface DiscoveredProvider {
  value: ProviderMetadata;
  readAt: number;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

/** Talks to one OpenID provider. */
export class ProviderClient {
  readonly #config: OidcConfig;
  readonly #clock: () => number;
  #metadata: DiscoveredProvider | null = null;

  constructor(config: OidcConfig, clock: () => number) {
    this.#config = config;
    this.#clock = clock;
  }

  /** The provider's discovery document, read (and checked) at most once an hour. */
  async metadata(): Promise<ProviderMetadata> {
    return (await this.#current()).value;
  }

  async #current(): Promise<DiscoveredProvider> {
    const now = this.#clock();
    if (this.#metadata !== null && now - this.#metadata.readAt < DISCOVERY_MAX_AGE_MS) return this.#metadata;
    const value = await this.#discover();
    const keys =
      this.#metadata !== null && this.#metadata.value.jwks_uri === value.jwks_uri
        ? this.#metadata.keys
        : // ID tokens arrive only over the back channel, so an unknown key id cannot be an attacker's
          // lever to make svc fetch the key set repeatedly: read it again at once (no cooldown).
          createRemoteJWKSet(new URL(value.jwks_uri), { cooldownDuration: 0, timeoutDuration: PROVIDER_TIMEOUT_MS });
    this.#metadata = { value, readAt: now, keys };
    return this.#metadata;
  }

  async #discover(): Promise<ProviderMetadata> {
    const url = `${this.#config.issuer}/.well-known/openid-configuration`;
    let body: unknown;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body = await response.json();
    } catch {
      throw unreachable('discovery document');
    }
    const document = body as Partial<ProviderMetadata>;
    const fields = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;
    if (typeof body !== 'object' || body === null || fields.some((field) => typeof document[field] !== 'string')) {
      throw unreachable('the discovery document lacks issuer, authorization_endpoint, token_endpoint or jwks_uri');
    }
    // OpenID Connect Discovery §4.3: the document must name exactly the issuer it was fetched for.
    if (document.issuer?.replace(/\/+$/, '') !== this.#config.issuer) {
      throw unreachable(`the discovery document names issuer ${JSON.stringify(document.issuer)}, not SVC_OIDC_ISSUER`);
    }
    return document as ProviderMetadata;
  }

  /**
   * Exchanges an authorization code (with its PKCE verifier) at the token endpoint and returns the
   * raw ID token.
   */
  async exchangeCode(code: string, codeVerifier: string): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl(this.#config), code_verifier: codeVerifier });
    const { status, body } = await this.#post((await this.metadata()).token_endpoint, form, 'token endpoint');
    if (status < 200 || status >= 300) throw this.#tokenError(status, body, 'the provider refused the authorization code');
    return idTokenOf(body);
  }

  /**
   * Starts a device authorization grant (RFC 8628) at the provider's device authorization endpoint.
   *
   * @throws {ApiError} `oidc_device_flow_unsupported` when the provider does not advertise one.
   */
  async startDeviceAuthorization(): Promise<DeviceAuthorization> {
    const endpoint = (await this.metadata()).device_authorization_endpoint;
    if (endpoint === undefined) {
      throw new ApiError('oidc_device_flow_unsupported', 'The identity provider does not offer the device authorization grant; sign in through a browser instead');
    }
    const { status, body } = await this.#post(endpoint, new URLSearchParams({ scope: this.#config.scopes.join(' ') }), 'device authorization endpoint');
    const answer = (body ?? {}) as Partial<DeviceAuthorization>;
    if (status < 200 || status >= 300) throw this.#tokenError(status, body, 'the provider refused to start a device sign-in');
    if (typeof answer.device_code !== 'string' || typeof answer.user_code !== 'string' || typeof answer.verification_uri !== 'string' || typeof answer.expires_in !== 'number') {
      throw unreachable('the device authorization answer lacks device_code, user_code, verification_uri or expires_in');
    }
    return {
      device_code: answer.device_code,
      user_code: answer.user_code,
      verification_uri: answer.verification_uri,
      ...(typeof answer.verification_uri_complete === 'string' ? { verification_uri_complete: answer.verification_uri_complete } : {}),
      expires_in: answer.expires_in,
      interval: typeof answer.interval === 'number' && answer.interval > 0 ? answer.interval : 5,
    };
  }

  /**
   * Asks the token endpoint whether the person approved a device sign-in: the raw ID token when they
   * did, `pending` or `slow_down` while they have not.
   */
  async pollDeviceToken(deviceCode: string): Promise<{ idToken: string } | 'pending' | 'slow_down'> {
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode });
    const { status, body } = await this.#post((await this.metadata()).token_endpoint, form, 'token endpoint');
    if (status >= 200 && status < 300) return { idToken: idTokenOf(body) };
    const error = (body as { error?: unknown } | null)?.error;
    if (error === 'authorization_pending') return 'pending';
    if (error === 'slow_down') return 'slow_down';
    throw this.#tokenError(status, body, 'the device sign-in ended');
  }

  /** POSTs a form to the provider with this client's authentication. */
  async #post(url: string, form: URLSearchParams, what: string): Promise<{ status: number; body: unknown }> {
    const metadata = await this.metadata();
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const { clientId, clientSecret } = this.#config;
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    if (clientSecret === null) {
      form.set('client_id', clientId);
    } else if (methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) {
      // RFC 6749 §2.3.1: both parts form-urlencoded before the Basic encoding.
      headers['authorization'] = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    try {
      const response = await fetch(url, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
      return { status: response.status, body: await response.json().catch(() => null) };
    } catch {
      throw unreachable(what);
    }
  }

  #tokenError(status: number, body: unknown, refusal: string): ApiError {
    const error = (body as { error?: unknown } | null)?.error;
    const reason = typeof error === 'string' ? error : `HTTP ${status}`;
    if (status >= 500) return unreachable(`it answered ${reason}`);
    return refused(`${refusal} (${reason})`);
  }

  /**
   * Verifies an ID token: signature by a key of the provider's JWKS (asymmetric algorithms only),
   * `iss` equal to the issuer, `aud` holding the client id (and `azp` naming it when there are
   * several audiences), `exp`/`iat` against the clock with a minute of leeway, and `nonce` equal
   * to the one this sign-in sent.
   */
  async verifyIdToken(idToken: string, expectedNonce: string | null): Promise<JWTPayload & { sub: string }> {
    const { value: metadata, keys } = await this.#current();
    const advertised = metadata.id_token_signing_alg_values_supported;
    const algorithms = advertised === undefined ? ['RS256'] : advertised.filter((algorithm) => ASYMMETRIC_ALGORITHMS.includes(algorithm));
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: metadata.issuer,
        audience: this.#config.clientId,
        algorithms,
        clockTolerance: 60,
        currentDate: new Date(this.#clock()),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || (error instanceof joseErrors.JOSEError && error.code === 'ERR_JWKS_INVALID')) throw unreachable('signing keys');
      const code = error instanceof joseErrors.JOSEError ? error.code : 'ERR_UNKNOWN';
      throw refused(`the ID token is not valid (${code})`);
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (audiences.length > 1 && payload['azp'] !== this.#config.clientId) throw refused('the ID token was issued to another party (azp)');
    // A device sign-in sends no nonce (RFC 8628 has none); its ID token comes straight from the token endpoint.
    if (expectedNonce !== null && (typeof payload['nonce'] !== 'string' || payload['nonce'] !== expectedNonce)) {
      throw refused('the ID token does not carry this sign-in\'s nonce');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw refused('the ID token names no subject');
    return payload as JWTPayload & { sub: string };
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}
