/**
 * The client's IP address. `X-Forwarded-For` and `X-Real-IP` are believed only when the peer is a
 * trusted proxy (`SVC_TRUSTED_PROXIES`); otherwise anyone could pick the address their failures are
 * counted against. The `X-Forwarded-For` chain is walked from the nearest hop while each hop is
 * trusted; every hop is canonicalised ({@link canonicalIp}), and a hop that is no IP address ends the
 * walk at the last address that was one (text is never counted or stored as a client). `X-Real-IP`
 * is used when a trusted peer sent no `X-Forwarded-For`.
 */
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';
import { canonicalIp } from './ip-address.js';

/** Decides whether an address (with its hop index) belongs to a trusted proxy. */
export type TrustFunction = (address: string, hop: number) => boolean;

/** Builds the trust function for the configured proxies; with none, nobody is trusted. */
export function trustedProxyFunction(trustedProxies: readonly string[]): TrustFunction {
  if (trustedProxies.length === 0) return () => false;
  return proxyAddr.compile([...trustedProxies]);
}

/** The client IP of `request`. */
export function clientIp(request: FastifyRequest, trust: TrustFunction): string {
  const rawPeer = request.socket.remoteAddress ?? '';
  const peer = canonicalIp(rawPeer) ?? rawPeer;
  const forwarded = headerText(request.headers['x-forwarded-for']);
  if (forwarded === null) {
    const realIp = headerText(request.headers['x-real-ip']);
    if (realIp !== null && peer !== '' && trust(peer, 0)) return canonicalIp(realIp) ?? peer;
    return peer;
  }
  const hops = forwarded.split(',').reverse();
  let client = peer;
  for (let hop = 0; hop < hops.length; hop += 1) {
    if (!trust(client, hop)) return client;
    const next = canonicalIp(hops[hop] as string);
    if (next === null) return client;
    client = next;
  }
  return client;
}

/** A header's text (several copies joined as the HTTP rules say), or null when absent. */
function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(',') : value;
}
