/**
 * The image (`Dockerfile`) and the smallest compose stack (`compose.yaml`: one svc on SQLite on a
 * named volume), built and run with podman: lean, non-root, serving the API; users, keys and the
 * audit chain surviving `down` and `up`; a clean stop on SIGTERM that loses no audit record.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, contractClient, createKey, login, setupAdmin } from '@svc/server/testing';
import { freePort, run, waitForStatus } from './podman.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** The image under test: built by global-setup.ts unless `SVC_TEST_IMAGE` names one already built. */
const image = process.env['SVC_TEST_IMAGE'] ?? 'localhost/svc:test';
const project = `svc-test-${process.pid}`;

function compose(args: string[], port: number) {
  return run('podman-compose', ['-p', project, '-f', 'compose.yaml', ...args], { cwd: repositoryRoot, env: { SVC_IMAGE: image, SVC_PORT: String(port) } });
}

async function containerName(): Promise<string> {
  const listed = await run('podman', ['ps', '-a', '--filter', `label=io.podman.compose.project=${project}`, '--format', '{{.Names}}']);
  const name = listed.stdout.trim().split('\n')[0];
  assert.ok(name, `no container of project ${project}`);
  return name;
}

describe('the svc image', () => {
  it('is lean and runs as a user of its own: no compiler, no development dependency, no test file', async () => {
    const probe = await run('podman', [
      'run', '--rm', '--entrypoint', 'sh', image, '-c',
      'id -u; command -v g++ cc make python3 || true; ls /app/node_modules | grep -cE "^(vitest|typescript|playwright-core|@vitest|tsx|msw)$" || true; find /app -name "*.test.js" -o -name "*.ts" -not -name "*.d.ts" | grep -v node_modules | wc -l',
    ]);
    const [uid, ...rest] = probe.stdout.trim().split('\n');
    assert.notEqual(uid, '0', 'the image runs as root');
    const compilers = rest.filter((line) => line.startsWith('/'));
    assert.deepEqual(compilers, [], 'compilers in the final stage');
    const counts = rest.filter((line) => !line.startsWith('/')).map(Number);
    assert.deepEqual(counts, [0, 0], 'development dependencies or test/source files in the final stage');
    const size = await run('podman', ['image', 'inspect', image, '--format', '{{.Size}}']);
    console.log(`svc image size: ${(Number(size.stdout.trim()) / 1e6).toFixed(0)} MB`);
  });
});

describe('compose.yaml (one svc on SQLite, on a named volume)', () => {
  let port: number;
  let baseUrl: string;

  beforeAll(async () => {
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    await compose(['up', '-d'], port);
    await waitForStatus(`${baseUrl}/status`, 200);
  });

  afterAll(async () => {
    await compose(['down', '-v'], port).catch(() => undefined);
    // podman-compose 1.0.3 leaves the project's network behind.
    await run('podman', ['network', 'rm', '-f', `${project}_default`], { allowFailure: true });
  });

  it('serves setup, login and a key; all survive down and up, and the audit chain verifies', async () => {
    const client = contractClient(baseUrl);
    const admin = await setupAdmin(client);
    const key = await createKey(client, admin.accessToken, { name: 'container key' });
    assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 200);

    await compose(['down'], port);
    await compose(['up', '-d'], port);
    await waitForStatus(`${baseUrl}/status`, 200);

    const again = await login(client, adminCredentials.username, adminCredentials.password);
    const me = await client.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(me.status, 200, 'the key works after down and up');
    assert.equal(me.body.username, adminCredentials.username);
    const verified = await client.request('GET', '/v1/audit/verify', { token: again.access_token });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.ok, true, JSON.stringify(verified.body));
  });

  it('stops cleanly on SIGTERM (exit 0) and loses no audit record of the last request', async () => {
    const client = contractClient(baseUrl);
    const admin = await login(client, adminCredentials.username, adminCredentials.password);
    const last = await createKey(client, admin.access_token, { name: 'just before SIGTERM' });
    const name = await containerName();
    await run('podman', ['stop', '--time', '30', name]);
    const exit = await run('podman', ['inspect', name, '--format', '{{.State.ExitCode}}']);
    assert.equal(exit.stdout.trim(), '0', 'the server did not exit 0 on SIGTERM');

    await run('podman', ['start', name]);
    await waitForStatus(`${baseUrl}/status`, 200);
    const token = (await login(client, adminCredentials.username, adminCredentials.password)).access_token;
    const search = await client.request('GET', '/v1/audit/search?time_from=now-1h&size=500', { token });
    assert.equal(search.status, 200);
    const recorded = (search.body.hits as Record<string, unknown>[]).some((hit) => JSON.stringify(hit).includes(last.id));
    assert.ok(recorded, 'the key created just before SIGTERM is not in the audit trail');
  });
});
