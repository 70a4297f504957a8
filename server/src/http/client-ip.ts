/**
 * The client's IP address. `X-Forwarded-For` and `X-Real-IP` are believed only when the peer is a
 * trusted proxy (`SVC_TRUSTED_PROXIES`); otherwise anyone could pick the address their failures are
 * counted against. Fastify's `trustProxy` handles `X-Forwarded-For` (walking the chain from the
 * nearest hop while each hop is trusted); `X-Real-IP` is used when a trusted peer sent no
 * `X-Forwarded-For`.
 */
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';

/** Decides whether an address (with its hop index) belongs to a trusted proxy. */
export type TrustFunction = (address: string, hop: number) => boolean;

/** Builds the trust function for the configured proxies; with none, nobody is trusted. */
export function trustedProxyFunction(trustedProxies: readonly string[]): TrustFunction {
  if (trustedProxies.length === 0) return () => false;
  return proxyAddr.compile([...trustedProxies]);
}

/** The client IP of `request` (Fastify's `trustProxy` must be set to the same trust function). */
export function clientIp(request: FastifyRequest, trust: TrustFunction): string {
  const peer = request.socket.remoteAddress ?? '';
  if (request.headers['x-forwarded-for'] === undefined) {
    const realIp = request.headers['x-real-ip'];
    if (typeof realIp === 'string' && peer !== '' && trust(peer, 0)) {
      const candidate = realIp.trim();
      if (isIP(candidate) !== 0) return normalizeIp(candidate);
    }
    return normalizeIp(peer);
  }
  return normalizeIp(request.ip);
}

/** `::ffff:1.2.3.4` is the IPv4 address 1.2.3.4. */
function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
