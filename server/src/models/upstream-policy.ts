/**
 * Which upstream model servers svc may call (issue 14, H4: server-side request forgery). A base URL
 * must be plain `http(s)://host[:port][/path]`: no user-info, query or fragment. Its addresses must be
 * allowed by `SVC_UPSTREAM_ALLOWED` (host names, IP addresses and CIDRs); when that is unset, every
 * address is allowed except the special ones. Special addresses (link-local, cloud metadata,
 * unspecified, multicast, broadcast) are refused unless an entry names them explicitly: the address
 * itself, or a CIDR of at least /16 (IPv4) or /10 (IPv6) whose network is itself special, so
 * `0.0.0.0/0` does not open the metadata service. An address literal is checked when the URL is
 * set; a host name is checked on the addresses it resolves to at connect time (allowed when it is
 * listed itself, or when every address is), so it cannot be rebound to a refused address.
 */
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../errors.js';
import { canonicalIp } from '../http/ip-address.js';

/** Ranges refused unless listed explicitly. */
const special = new BlockList();
special.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, with 169.254.169.254 (AWS, GCP, Azure, OpenStack metadata)
special.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network"; 0.0.0.0 reaches the local host
special.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
special.addAddress('255.255.255.255', 'ipv4');
special.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
special.addSubnet('fe80::', 10, 'ipv6'); // link-local
special.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
special.addAddress('::', 'ipv6');
special.addSubnet('ff00::', 8, 'ipv6'); // multicast

const SPECIAL_ENTRY_MIN_PREFIX = { ipv4: 16, ipv6: 10 } as const;

type Family = 'ipv4' | 'ipv6';

const familyOf = (address: string): Family => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** One parsed `SVC_UPSTREAM_ALLOWED` entry. */
type AllowEntry = { kind: 'host'; name: string } | { kind: 'net'; address: string; prefix: number; family: Family };

/**
 * Parses `SVC_UPSTREAM_ALLOWED`-style entries: host names, IP addresses and CIDRs.
 *
 * @throws {Error} naming the first entry that is none of those.
 */
export function parseUpstreamAllowList(entries: readonly string[]): AllowEntry[] {
  return entries.map((entry) => {
    const [addressText, prefixText, extra] = entry.split('/');
    const address = canonicalIp(addressText ?? '');
    if (address !== null && extra === undefined) {
      const family = familyOf(address);
      const max = family === 'ipv4' ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
        throw new Error(`${JSON.stringify(entry)} has an invalid prefix length`);
      }
      return { kind: 'net', address, prefix, family };
    }
    if (prefixText === undefined && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(entry)) {
      return { kind: 'host', name: entry.toLowerCase() };
    }
    throw new Error(`${JSON.stringify(entry)} is not a host name, an IP address or a CIDR`);
  });
}

/** Decides which upstream URLs and addresses svc may call. */
export class UpstreamPolicy {
  readonly #restricted: boolean;
  readonly #hosts: ReadonlySet<string>;
  readonly #allowed = new BlockList();
  readonly #explicitSpecial = new BlockList();

  /** @param allowList - the parsed `SVC_UPSTREAM_ALLOWED`, or null when it is unset (everything but special addresses). */
  constructor(allowList: readonly AllowEntry[] | null) {
    this.#restricted = allowList !== null;
    const hosts = new Set<string>();
    for (const entry of allowList ?? []) {
      if (entry.kind === 'host') {
        hosts.add(entry.name);
        continue;
      }
      this.#allowed.addSubnet(entry.address, entry.prefix, entry.family);
      if (special.check(entry.address, entry.family) && entry.prefix >= SPECIAL_ENTRY_MIN_PREFIX[entry.family]) {
        this.#explicitSpecial.addSubnet(entry.address, entry.prefix, entry.family);
      }
    }
    this.#hosts = hosts;
  }

  /**
   * Checks a base URL as given by a caller and answers it without a trailing slash.
   *
   * @throws {ApiError} 400 `upstream_not_allowed` naming what is wrong.
   */
  checkBaseUrl(text: string): string {
    const refuse = (why: string) => new ApiError('upstream_not_allowed', `upstream_base_url ${why}`, { param: 'upstream_base_url' });
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw refuse('is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an http or https URL');
    if (url.username !== '' || url.password !== '') throw refuse('must not carry user-info (user:password@); pass the upstream\'s key as upstream_api_key');
    if (text.includes('?') || text.includes('#')) throw refuse('must not carry a query (?) or a fragment (#)');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!this.hostMayBeCalled(host)) throw refuse(`points at ${host}, which is not allowed (a link-local or metadata address, or outside SVC_UPSTREAM_ALLOWED)`);
    return url.href.replace(/\/+$/, '');
  }

  /**
   * True when a URL's host may be called as far as can be told before connecting: an address literal
   * is checked now; a host name always passes here, because what counts is the addresses it
   * resolves to when svc connects (checked then by {@link addressMayBeCalled}).
   */
  hostMayBeCalled(host: string): boolean {
    const address = canonicalIp(host);
    return address === null || this.addressMayBeCalled(address, null);
  }

  /**
   * True when svc may connect to `address`, reached through the host name `host` (null for an
   * address literal). Special addresses need an explicit entry whatever the host.
   */
  addressMayBeCalled(address: string, host: string | null): boolean {
    const canonical = canonicalIp(address);
    if (canonical === null) return false;
    const family = familyOf(canonical);
    if (special.check(canonical, family)) return this.#explicitSpecial.check(canonical, family);
    if (!this.#restricted) return true;
    return this.#allowed.check(canonical, family) || (host !== null && this.#hosts.has(host.toLowerCase()));
  }
}
