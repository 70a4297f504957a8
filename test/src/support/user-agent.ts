/**
 * A scripted browser for protocol tests without a real one: a cookie jar per origin and redirects
 * followed by hand (each hop recorded), over real HTTP. Cookies are sent to their origin whatever
 * their `Path` (the servers under test scope theirs tighter; sending more is the harsher test).
 */

/** One response the agent saw. */
export interface Hop {
  url: string;
  status: number;
  location: string | null;
  setCookies: string[];
  body: string;
}

/** A cookie-keeping HTTP client that follows redirects step by step. */
export class UserAgent {
  readonly #jar = new Map<string, Map<string, string>>();

  /** The cookies held for `origin`. */
  cookies(origin: string): ReadonlyMap<string, string> {
    return this.#jar.get(origin) ?? new Map();
  }

  /** Drops a cookie (as a user clearing it, or another browser lacking it). */
  forget(origin: string, name: string): void {
    this.#jar.get(origin)?.delete(name);
  }

  /** Sends one request (no redirect followed), keeping its cookies. */
  async request(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}): Promise<Hop> {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookies = [...this.cookies(target.origin)].map(([name, value]) => `${name}=${value}`);
    if (cookies.length > 0) headers['cookie'] = cookies.join('; ');
    let body: string | undefined;
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(target, { method: init.method ?? 'GET', headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) this.#store(target.origin, line);
    const location = response.headers.get('location');
    return { url: target.href, status: response.status, location: location === null ? null : new URL(location, target).href, setCookies, body: await response.text() };
  }

  /** Follows redirects from `url` until an answer that is not one (at most 20 hops); returns every hop. */
  async follow(url: string, stopAt?: (next: URL) => boolean): Promise<Hop[]> {
    const hops: Hop[] = [];
    let next: string | null = url;
    while (next !== null && hops.length < 20) {
      if (stopAt !== undefined && hops.length > 0 && stopAt(new URL(next))) break;
      const hop = await this.request(next);
      hops.push(hop);
      next = hop.status >= 300 && hop.status < 400 ? hop.location : null;
    }
    return hops;
  }

  #store(origin: string, line: string): void {
    const [pair = ''] = line.split(';');
    const separator = pair.indexOf('=');
    if (separator === -1) return;
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    const maxAge = /;\s*max-age=(\d+)/i.exec(line);
    const jar = this.#jar.get(origin) ?? new Map<string, string>();
    this.#jar.set(origin, jar);
    if (value === '' || (maxAge !== null && Number(maxAge[1]) === 0)) jar.delete(name);
    else jar.set(name, value);
  }
}
