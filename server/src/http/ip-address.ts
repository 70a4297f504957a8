/**
 * One spelling per IP address. Failures are counted and bans kept per client address, so every
 * way of writing one address must come out as the same text, and text that is no address must not
 * be counted (or stored as `client_ip`) at all (issue 14, H9).
 */
import { isIP } from 'node:net';

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;
const DOTTED_DECIMAL = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const MAPPED_IPV4_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The canonical text of an IP address written as `text`, or null when it is not one.
 * IPv4 is dotted decimal without leading zeros (`010.009.009.009` is `10.9.9.9`, read as decimal as
 * the dotted-quad standard does); a port (`10.9.9.9:1234`, `[::1]:80`) is dropped; IPv6 is in its
 * compressed lowercase form (RFC 5952); an IPv4-mapped IPv6 address (`::ffff:10.9.9.9`) is the
 * IPv4 address. Zone ids, hostnames and anything else answer null.
 *
 * @example canonicalIp('::ffff:10.9.9.9') // '10.9.9.9'
 */
export function canonicalIp(text: string): string | null {
  let candidate = text.trim();
  const bracketed = BRACKETED_IPV6.exec(candidate);
  if (bracketed !== null) candidate = bracketed[1] as string;
  const withPort = IPV4_WITH_PORT.exec(candidate);
  if (withPort !== null) candidate = withPort[1] as string;
  const dotted = DOTTED_DECIMAL.exec(candidate);
  if (dotted !== null) {
    const octets = dotted.slice(1).map(Number);
    return octets.every((octet) => octet <= 255) ? octets.join('.') : null;
  }
  if (isIP(candidate) !== 6 || candidate.includes('%')) return null;
  const compressed = new URL(`http://[${candidate}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_IPV4_HEX.exec(compressed);
  if (mapped === null) return compressed;
  const high = parseInt(mapped[1] as string, 16);
  const low = parseInt(mapped[2] as string, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True for 127.0.0.0/8, ::1 and the unspecified-address spellings' opposites: a loopback address. */
export function isLoopback(address: string): boolean {
  const canonical = canonicalIp(address);
  return canonical !== null && (canonical === '::1' || canonical.startsWith('127.'));
}
