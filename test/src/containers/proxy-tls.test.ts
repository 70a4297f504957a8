/**
 * The proxy image's TLS (`deploy/haproxy/haproxy.cfg` with `SVC_PROXY_TLS_CERTIFICATE`, as
 * `compose.postgres.tls.yaml` sets it): HTTPS with the mounted certificate, TLS 1.2 or later, HSTS,
 * and the plain port redirecting to HTTPS. Run alone (no replicas behind it): every answer it gives
 * through to svc is then 503, which is enough to see TLS end at the proxy.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { pollUntil } from '@svc/server/testing';
import { freePort, run } from './podman.js';

const proxyImage = process.env['SVC_TEST_PROXY_IMAGE'] ?? 'localhost/svc-proxy:test';
const container = `svc-proxy-tls-test-${process.pid}`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  protocol: string | null;
}

function get(url: string, ca?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const callback = (response: import('node:http').IncomingMessage) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, protocol: (response.socket as TLSSocket).getProtocol?.() ?? null }));
    };
    const sent = url.startsWith('https:') ? httpsRequest(url, { ca, agent: false }, callback) : httpRequest(url, { agent: false }, callback);
    sent.on('error', reject);
    sent.end();
  });
}

describe('the proxy image with a TLS certificate (compose.postgres.tls.yaml)', () => {
  let directory: string;
  let certificate: string;
  let httpPort: number;
  let httpsPort: number;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'svc-proxy-tls-'));
    await run('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'certificate.pem'),
    ]);
    certificate = await readFile(join(directory, 'certificate.pem'), 'utf8');
    await writeFile(join(directory, 'tls.pem'), certificate + (await readFile(join(directory, 'key.pem'), 'utf8')));
    await chmod(join(directory, 'tls.pem'), 0o644);
    httpPort = await freePort();
    httpsPort = await freePort();
    await run('podman', [
      'run', '-d', '--name', container, '-p', `127.0.0.1:${httpPort}:8080`, '-p', `127.0.0.1:${httpsPort}:8443`,
      '-v', `${join(directory, 'tls.pem')}:/run/secrets/tls_certificate:ro`, '-e', 'SVC_PROXY_TLS_CERTIFICATE=/run/secrets/tls_certificate', proxyImage,
    ]);
    const seen = await pollUntil(
      () => get(`https://127.0.0.1:${httpsPort}/ready`, certificate).then((answer) => answer.status, (error: Error) => error.message),
      (outcome) => typeof outcome === 'number',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    if (typeof seen.at(-1) !== 'number') {
      const log = await run('podman', ['logs', container], { allowFailure: true });
      throw new Error(`the proxy never answered over HTTPS (last: ${String(seen.at(-1))}):\n${log.stdout}${log.stderr}`);
    }
  });

  afterAll(async () => {
    await run('podman', ['rm', '-f', container], { allowFailure: true });
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  it('serves HTTPS with the mounted certificate, TLS 1.2 or later, with Strict-Transport-Security', async () => {
    const answer = await get(`https://127.0.0.1:${httpsPort}/ready`, certificate);
    assert.equal(answer.status, 503, 'no replica is behind this proxy');
    assert.ok(['TLSv1.2', 'TLSv1.3'].includes(answer.protocol ?? ''), `protocol ${String(answer.protocol)}`);
    assert.match(String(answer.headers['strict-transport-security']), /max-age=\d+/);
    await assert.rejects(get(`https://127.0.0.1:${httpsPort}/ready`), /self-signed|self signed|unable to verify/i, 'a client without the CA must refuse the certificate');
  });

  it('redirects plain HTTP to HTTPS (308), keeping the path', async () => {
    const answer = await get(`http://127.0.0.1:${httpPort}/v1/auth/me?x=1`);
    assert.equal(answer.status, 308);
    assert.match(String(answer.headers.location), /^https:\/\/127\.0\.0\.1(:\d+)?\/v1\/auth\/me\?x=1$/);
  });
});
