/**
 * Raw HTTP over a socket, for requests fetch refuses to send (control characters in headers,
 * duplicate headers, broken framing), and the cases sent that way.
 */
import { connect } from 'node:net';


/** A parsed HTTP/1.1 response. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as is to the server of `baseUrl` and parses what comes back before the socket closes. */
export function rawRequest(baseUrl: string, request: Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    }, 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (end === -1 || statusLine === null) {
        reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = Buffer.from(text.slice(end + 4), 'latin1');
      if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        const parts: Buffer[] = [];
        let at = 0;
        for (;;) {
          const lineEnd = body.indexOf('\r\n', at);
          const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
          if (!(size > 0)) break;
          parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
        }
        body = Buffer.concat(parts);
      }
      resolve({ status: Number(statusLine[1]), headers, body: body.toString('utf8') });
    });
    socket.write(request);
  });
}

/** One raw request and what may come back. */
export interface RawCase {
  label: string;
  request: string;
  /** The operation's method and path, for validating a routed answer; null for a request that never routes. */
  route: { method: string; path: string } | null;
  expect?: readonly number[];
  expectCode?: string;
}

/** Requests only a raw socket can send: control characters, duplicate headers, broken framing, odd request lines. */
export function rawCases(adminToken: string): RawCase[] {
  const head = (method: string, target: string, headers: string[], body = '') =>
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n${body}`;
  const me = { method: 'GET', path: '/v1/auth/me' };
  const login = { method: 'POST', path: '/v1/auth/login' };
  const loginBody = '{"username":"admin","password":"not the password at all"}';
  const cases: RawCase[] = [];
  for (const [name, char] of [
    ['NUL', '\u0000'],
    ['SOH', '\u0001'],
    ['ESC', '\u001b'],
    ['DEL', '\u007f'],
    ['vertical tab', '\u000b'],
    ['bare CR', '\r'],
    ['bare LF', '\n'],
  ] as const) {
    cases.push({ label: `token with a ${name}`, request: head('GET', '/v1/auth/me', [`Authorization: Bearer ${adminToken.slice(0, 20)}${char}${adminToken.slice(20)}`]), route: null, expect: [400] });
  }
  cases.push({ label: 'token with latin-1 bytes', request: head('GET', '/v1/auth/me', ['Authorization: Bearer caf\u00e9\u00ff']), route: me, expect: [400], expectCode: 'malformed_authorization_header' });
  cases.push({ label: 'tab inside the header', request: head('GET', '/v1/auth/me', ['Authorization: Bearer\tabc']), route: me, expect: [400, 401] });
  cases.push({ label: '"Bearer" with trailing spaces', request: head('GET', '/v1/auth/me', ['Authorization: Bearer   ']), route: me, expect: [400], expectCode: 'malformed_authorization_header' });
  cases.push({ label: 'empty Authorization', request: head('GET', '/v1/auth/me', ['Authorization: ']), route: me, expect: [401], expectCode: 'missing_credentials' });
  cases.push({ label: '10 kB token', request: head('GET', '/v1/auth/me', [`Authorization: Bearer ${'k'.repeat(10_240)}`]), route: me, expect: [401] });
  // Duplicate headers: Node keeps the first Authorization and Content-Type; whichever wins, no 5xx.
  cases.push({ label: 'duplicate Authorization, valid first', request: head('GET', '/v1/auth/me', [`Authorization: Bearer ${adminToken}`, 'Authorization: Basic eA==']), route: me });
  cases.push({ label: 'duplicate Authorization, garbage first', request: head('GET', '/v1/auth/me', ['Authorization: Basic eA==', `Authorization: Bearer ${adminToken}`]), route: me, expect: [400] });
  cases.push({
    label: 'duplicate Content-Type',
    request: head('POST', '/v1/auth/login', ['Content-Type: text/plain', 'Content-Type: application/json', `Content-Length: ${loginBody.length}`], loginBody),
    route: login,
    expect: [400, 401, 415],
  });
  cases.push({ label: 'conflicting Content-Length', request: head('POST', '/v1/auth/login', ['Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3'], '{}'), route: null, expect: [400] });
  cases.push({ label: 'negative Content-Length', request: head('POST', '/v1/auth/login', ['Content-Type: application/json', 'Content-Length: -1'], '{}'), route: null, expect: [400] });
  cases.push({
    label: 'Transfer-Encoding and Content-Length together',
    request: head('POST', '/v1/auth/login', ['Content-Type: application/json', 'Transfer-Encoding: chunked', 'Content-Length: 3'], '2\r\n{}\r\n0\r\n\r\n'),
    route: null,
    expect: [400],
  });
  cases.push({ label: 'bad chunk size', request: head('POST', '/v1/auth/login', ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'), route: null, expect: [400] });
  cases.push({ label: 'JSON body without a Content-Type', request: head('POST', '/v1/auth/login', [`Content-Length: ${loginBody.length}`], loginBody), route: login, expect: [415] });
  cases.push({ label: 'header line without a colon', request: head('GET', '/v1/auth/me', ['NoColonHere']), route: null, expect: [400] });
  cases.push({ label: 'header name with a space', request: head('GET', '/v1/auth/me', ['Bad Name: x']), route: null, expect: [400] });
  cases.push({ label: '20 kB header block', request: head('GET', '/v1/auth/me', [`X-Padding: ${'h'.repeat(20_000)}`]), route: null, expect: [431] });
  cases.push({ label: 'request line garbage', request: 'GARBAGE\r\n\r\n', route: null, expect: [400] });
  cases.push({ label: 'unknown HTTP version', request: 'GET /status HTTP/9.9\r\nHost: x\r\n\r\n', route: null, expect: [400] });
  cases.push({ label: 'space in the path', request: head('GET', '/v1/admin/us ers', []), route: null, expect: [400] });
  cases.push({ label: 'raw UTF-8 in the path', request: head('GET', '/v1/admin/users/\u00e3\u0083\u00a6', [`Authorization: Bearer ${adminToken}`]), route: null, expect: [400, 404] });
  cases.push({ label: 'raw dot-dot segments', request: head('GET', '/v1/admin/users/../../../status', [`Authorization: Bearer ${adminToken}`]), route: null, expect: [400, 404] });
  cases.push({ label: 'dot-dot as the user id', request: head('GET', '/v1/admin/users/..', [`Authorization: Bearer ${adminToken}`]), route: { method: 'GET', path: '/v1/admin/users/..' }, expect: [400] });
  cases.push({ label: 'percent garbage in the path', request: head('GET', '/v1/admin/keys/%zz/reveal', [`Authorization: Bearer ${adminToken}`]), route: { method: 'GET', path: '/v1/admin/keys/%zz/reveal' }, expect: [400] });
  return cases;
}

// ---------------------------------------------------------------------------------------------
