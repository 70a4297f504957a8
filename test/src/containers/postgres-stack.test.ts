/**
 * `compose.postgres.yaml`, run with podman-compose: two svc replicas on PostgreSQL behind HAProxy,
 * secrets from compose secrets. Setup and login through the proxy; a key made on one replica works
 * on the other (each addressed directly); the proxy keeps serving when a replica is killed; users,
 * keys and the audit chain survive `down` and `up` (`svc-audit-verify` in a container, also through
 * a 15 s name lookup); a replica stopped with SIGTERM exits 0 and loses no acknowledged write.
 * Readiness is polled, never slept on.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, contractClient, createKey, login, pollUntil, setupAdmin, type ContractClient } from '@svc/server/testing';
import { freePort, run, waitForStatus } from './podman.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const project = `svc-pg-test-${process.pid}`;
const secretNames = ['db_password', 'jwt_secret_key', 'encryption_key'] as const;

/** The compose stack of this file: its project, port, images and secrets directory. */
class PostgresStack {
  constructor(
    readonly port: number,
    readonly secretsDirectory: string,
  ) {}

  get proxyUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  compose(args: readonly string[]) {
    return run('podman-compose', ['-p', project, '-f', 'compose.postgres.yaml', ...args], {
      cwd: repositoryRoot,
      env: {
        SVC_IMAGE: process.env['SVC_TEST_IMAGE'] ?? 'localhost/svc:test',
        SVC_PROXY_IMAGE: process.env['SVC_TEST_PROXY_IMAGE'] ?? 'localhost/svc-proxy:test',
        SVC_POSTGRES_IMAGE: process.env['SVC_TEST_POSTGRES_IMAGE'] ?? 'localhost/svc-test-postgres:latest',
        SVC_PORT: String(this.port),
        SVC_SECRETS_DIR: this.secretsDirectory,
      },
    });
  }

  /** The container of `service` (podman-compose names it `{project}_{service}_1`). */
  container(service: 'postgres' | 'svc-1' | 'svc-2' | 'proxy'): string {
    return `${project}_${service}_1`;
  }

  /**
   * `up -d` as an operator of podman-compose does it (no healthchecks run here): PostgreSQL first,
   * polled with pg_isready, then the rest; then every replica and the proxy polled until ready.
   */
  async up(): Promise<void> {
    await this.compose(['up', '-d', 'postgres']);
    const database = this.container('postgres');
    const seen = await pollUntil(
      async () => (await run('podman', ['exec', database, 'pg_isready', '-q', '-h', '127.0.0.1', '-U', 'svc', '-d', 'auth'], { allowFailure: true })).code,
      (code) => code === 0,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    assert.equal(seen.at(-1), 0, 'PostgreSQL did not become ready');
    await this.compose(['up', '-d']);
    await this.waitForReplicas();
  }

  /** Polls each replica's and the proxy's `/ready`; a failure carries the end of every container's log. */
  async waitForReplicas(): Promise<void> {
    try {
      for (const replica of ['svc-1', 'svc-2'] as const) await waitForStatus(`${await this.replicaUrl(replica)}/ready`, 200, 120_000);
      await waitForStatus(`${this.proxyUrl}/ready`, 200, 60_000);
    } catch (error) {
      const logs = await Promise.all(
        (['postgres', 'svc-1', 'svc-2', 'proxy'] as const).map(async (service) => {
          const log = await run('podman', ['logs', '--tail', '15', this.container(service)], { allowFailure: true });
          return `--- ${service}\n${log.stdout}${log.stderr}`;
        }),
      );
      throw new Error(`${(error as Error).message}\n${logs.join('\n')}`);
    }
  }

  /** A replica addressed directly, at its address on the proxy network (reachable from this host). */
  async replicaUrl(replica: 'svc-1' | 'svc-2'): Promise<string> {
    return `http://${await this.addressOn(replica, 'proxy')}:9997`;
  }

  /**
   * What `service` sees of PostgreSQL when a new connection from it fails: when the lookup of
   * `postgres` ends there and what it answers, then when a TCP connection to each address opens or
   * fails (no timer of its own: the resolver and the kernel bound both); then the end of `service`'s
   * and PostgreSQL's logs, and PostgreSQL's sessions (whether it takes new connections at all).
   */
  async connectionReport(service: 'svc-1' | 'svc-2'): Promise<string> {
    const probe = `const started = Date.now();
    const since = () => (Date.now() - started) + ' ms';
    require('node:dns').lookup('postgres', { all: true }, (error, found) => {
      console.log('postgres resolves to', error?.code ?? JSON.stringify(found), 'at', since());
      for (const { address } of found ?? []) {
        const socket = require('node:net').connect(5432, address, () => { console.log(address, 'connects at', since()); socket.destroy(); });
        socket.on('error', (failure) => console.log(address, failure.code, 'at', since()));
      }
    });`;
    const seen = await run('podman', ['exec', this.container(service), 'node', '-e', probe], { allowFailure: true });
    const log = await run('podman', ['logs', '--tail', '15', this.container(service)], { allowFailure: true });
    const databaseLog = await run('podman', ['logs', '--tail', '15', this.container('postgres')], { allowFailure: true });
    const sessions = await run('podman', ['exec', this.container('postgres'), 'psql', '-U', 'svc', '-d', 'auth', '-Atc', "SELECT count(*), state, wait_event_type, wait_event FROM pg_stat_activity GROUP BY 2, 3, 4"], { allowFailure: true });
    return [
      `--- what ${service} sees of postgres:\n${seen.stdout}${seen.stderr}`,
      `--- ${service}'s log:\n${log.stdout}${log.stderr}`,
      `--- postgres's log:\n${databaseLog.stdout}${databaseLog.stderr}`,
      `--- postgres's sessions (count|state|wait):\n${sessions.stdout}${sessions.stderr}`,
    ].join('');
  }

  async addressOn(service: 'svc-1' | 'svc-2' | 'proxy', network: string): Promise<string> {
    const inspected = await run('podman', ['inspect', this.container(service), '--format', '{{json .NetworkSettings.Networks}}']);
    const networks = JSON.parse(inspected.stdout.trim()) as Record<string, { IPAddress?: string }>;
    const address = networks[`${project}_${network}`]?.IPAddress;
    assert.ok(address, `${service} has no address on ${network}: ${inspected.stdout}`);
    return address;
  }
}

/** The audit records of the last hour, as the admin `token` sees them. */
async function auditHits(client: ContractClient, token: string): Promise<Record<string, unknown>[]> {
  const search = await client.request('GET', '/v1/audit/search?time_from=now-1h&size=1000', { token });
  assert.equal(search.status, 200, search.text);
  return search.body.hits as Record<string, unknown>[];
}

describe('compose.postgres.yaml (two replicas on PostgreSQL behind HAProxy)', () => {
  let stack: PostgresStack;
  let secretsDirectory: string;
  let proxy: ContractClient;
  /** Made in the first test, checked after down and up. */
  let survivingKey: { id: string; key: string };

  beforeAll(async () => {
    secretsDirectory = join(await mkdtemp(join(tmpdir(), 'svc-pg-stack-')), 'secrets');
    await run('sh', ['deploy/make-secrets.sh', secretsDirectory], { cwd: repositoryRoot });
    stack = new PostgresStack(await freePort(), secretsDirectory);
    await stack.up();
    proxy = contractClient(stack.proxyUrl);
  });

  afterAll(async () => {
    await stack?.compose(['down', '-v']).catch(() => undefined);
    await run('podman', ['network', 'rm', '-f', `${project}_proxy`, `${project}_database`], { allowFailure: true });
    if (secretsDirectory !== undefined) await rm(join(secretsDirectory, '..'), { recursive: true, force: true });
  });

  it('keeps the secrets out of the containers\' configuration: only the *_FILE paths are there', async () => {
    const secrets = await Promise.all(secretNames.map(async (name) => (await readFile(join(secretsDirectory, name), 'utf8')).trim()));
    for (const service of ['svc-1', 'postgres'] as const) {
      const inspected = await run('podman', ['inspect', stack.container(service)]);
      for (const secret of secrets) assert.ok(!inspected.stdout.includes(secret), `a secret is in the configuration of ${service}`);
    }
    const environment = (await run('podman', ['inspect', stack.container('svc-1'), '--format', '{{json .Config.Env}}'])).stdout;
    assert.match(environment, /SVC_AUTH_JWT_SECRET_KEY_FILE=\/run\/secrets\/jwt_secret_key/);
  });

  it('runs setup and login through the proxy; a key made on one replica works on the other', async () => {
    const admin = await setupAdmin(proxy);
    const first = contractClient(await stack.replicaUrl('svc-1'));
    const second = contractClient(await stack.replicaUrl('svc-2'));
    assert.equal((await second.request('POST', '/v1/admin/setup', { body: adminCredentials })).status, 403, 'setup ran twice');

    const madeOnFirst = await createKey(first, admin.accessToken, { name: 'made on svc-1' });
    const onSecond = await second.request('GET', '/v1/auth/me', { token: madeOnFirst.key });
    assert.equal(onSecond.status, 200, onSecond.text);
    assert.equal(onSecond.body.username, adminCredentials.username);

    const tokensFromSecond = await login(second, adminCredentials.username, adminCredentials.password);
    assert.equal((await first.request('GET', '/v1/auth/me', { token: tokensFromSecond.access_token })).status, 200, 'a token of svc-2 fails on svc-1');
    const madeOnSecond = await createKey(second, tokensFromSecond.access_token, { name: 'made on svc-2' });
    assert.equal((await first.request('GET', '/v1/auth/me', { token: madeOnSecond.key })).status, 200);

    const revoked = await second.request('DELETE', `/v1/admin/keys/${madeOnSecond.id}`, { token: tokensFromSecond.access_token });
    assert.ok([200, 204].includes(revoked.status), revoked.text);
    assert.equal((await first.request('GET', '/v1/auth/me', { token: madeOnSecond.key })).status, 401, 'a key deleted on svc-2 still works on svc-1');
    survivingKey = { id: madeOnFirst.id, key: madeOnFirst.key };
  });

  it('records the client address the proxy saw, not the proxy\'s, and not one the client claimed', async () => {
    const attempt = `nobody-${process.pid}`;
    const refused = await proxy.request('POST', '/v1/auth/login', {
      body: { username: attempt, password: 'not the password of anybody' },
      headers: { 'x-forwarded-for': '203.0.113.77', 'x-real-ip': '203.0.113.78' },
    });
    assert.equal(refused.status, 401);
    const requestId = refused.headers.get('x-request-id');
    assert.ok(requestId, 'no x-request-id on the answer');
    const token = (await login(proxy, adminCredentials.username, adminCredentials.password)).access_token;
    const searches = await pollUntil(
      async () => (await auditHits(proxy, token)).find((hit) => hit['request_id'] === requestId),
      (found) => found !== undefined,
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const record = searches.at(-1);
    assert.ok(record, 'the failed login is not in the audit trail');
    assert.equal(record['status'], 'login_failed');
    const proxyAddress = await stack.addressOn('proxy', 'proxy');
    assert.ok(!['203.0.113.77', '203.0.113.78'].includes(String(record['client_ip'])), `svc believed the client's own header: ${String(record['client_ip'])}`);
    assert.notEqual(record['client_ip'], proxyAddress, 'svc recorded the proxy as the client: SVC_TRUSTED_PROXIES does not cover it');
  });

  it('keeps answering through the proxy when a replica is killed, and takes it back once ready', async () => {
    await run('podman', ['kill', stack.container('svc-1')]);
    const statuses: number[] = [];
    for (let request = 0; request < 20; request += 1) {
      statuses.push((await proxy.request('GET', '/v1/auth/me', { token: survivingKey.key })).status);
    }
    assert.deepEqual(statuses, Array(20).fill(200), `answers through the proxy with svc-1 killed: ${statuses.join(' ')}`);

    await run('podman', ['start', stack.container('svc-1')]);
    await stack.waitForReplicas();
    assert.equal((await contractClient(await stack.replicaUrl('svc-1')).request('GET', '/v1/auth/me', { token: survivingKey.key })).status, 200);
  });

  it('stops a replica on SIGTERM with exit 0, every acknowledged key stored and audited', async () => {
    const token = (await login(proxy, adminCredentials.username, adminCredentials.password)).access_token;
    const second = contractClient(await stack.replicaUrl('svc-2'));
    const burst = Array.from({ length: 8 }, (_, index) =>
      second.request('POST', '/v1/admin/keys', { token, body: { name: `burst ${index}` } }).then(
        (response) => (response.status === 201 ? (response.body.id as string) : null),
        () => null,
      ),
    );
    const stopped = run('podman', ['stop', '--time', '30', stack.container('svc-2')]);
    const acknowledged = (await Promise.all(burst)).filter((id): id is string => id !== null);
    await stopped;
    const exit = await run('podman', ['inspect', stack.container('svc-2'), '--format', '{{.State.ExitCode}}']);
    if (exit.stdout.trim() !== '0') {
      const log = await run('podman', ['logs', '--tail', '30', stack.container('svc-2')], { allowFailure: true });
      assert.fail(`svc-2 exited ${exit.stdout.trim()} on SIGTERM, not 0; its log ends:\n${log.stdout}${log.stderr}`);
    }

    const first = contractClient(await stack.replicaUrl('svc-1'));
    const listed = await first.request('GET', '/v1/admin/keys', { token });
    assert.equal(listed.status, 200, listed.text);
    const stored = new Set(JSON.stringify(listed.body).match(/"id":"[^"]+"/g) ?? []);
    const hits = JSON.stringify(await auditHits(first, token));
    for (const id of acknowledged) {
      assert.ok(stored.has(`"id":"${id}"`), `key ${id} was acknowledged but is not stored`);
      assert.ok(hits.includes(id), `the creation of key ${id} is not in the audit trail`);
    }
    await run('podman', ['start', stack.container('svc-2')]);
    await stack.waitForReplicas();
  });

  it('keeps users, keys and the audit chain across down and up (svc-audit-verify in a container)', async () => {
    await stack.compose(['down', '-t', '30']);
    await stack.up();

    const again = await login(proxy, adminCredentials.username, adminCredentials.password);
    const me = await proxy.request('GET', '/v1/auth/me', { token: survivingKey.key });
    assert.equal(me.status, 200, 'the key does not work after down and up');
    assert.equal(me.body.username, adminCredentials.username);
    const verified = await proxy.request('GET', '/v1/audit/verify', { token: again.access_token });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.ok, true, JSON.stringify(verified.body));

    const offline = await run('podman', ['exec', stack.container('svc-1'), 'node', 'server/dist/bin/svc-audit-verify.js', '--json'], { allowFailure: true });
    if (offline.code !== 0) assert.fail(`svc-audit-verify exited ${offline.code}: ${offline.stdout}${offline.stderr}${await stack.connectionReport('svc-1')}`);
    assert.equal(JSON.parse(offline.stdout).ok, true, offline.stdout);
  });

  it("runs svc-audit-verify through a 15 s name lookup: svc-1's first nameserver silent, as aardvark-dns 1.4 can leave it after containers restart", async () => {
    const replica = stack.container('svc-1');
    const pid = (await run('podman', ['inspect', replica, '--format', '{{.State.Pid}}'])).stdout.trim();
    const resolvConf = (await run('podman', ['exec', replica, 'cat', '/etc/resolv.conf'])).stdout;
    const first = /^nameserver\s+(\S+)/m.exec(resolvConf)?.[1];
    assert.ok(first, resolvConf);
    // The nameserver's answers are dropped in svc-1's network namespace: queries go out, nothing comes back.
    const silence = ['INPUT', '-s', first, '-p', 'udp', '--sport', '53', '-j', 'DROP'];
    await run('nsenter', ['-t', pid, '-n', 'iptables', '-I', ...silence]);
    try {
      const offline = await run('podman', ['exec', replica, 'node', 'server/dist/bin/svc-audit-verify.js', '--json'], { allowFailure: true });
      assert.equal(offline.code, 0, `svc-audit-verify exited ${offline.code}: ${offline.stdout}${offline.stderr}`);
      assert.equal(JSON.parse(offline.stdout).ok, true, offline.stdout);
      // The tool's lookups went to the silenced nameserver: its answers were dropped, counted by the rule.
      const counted = (await run('nsenter', ['-t', pid, '-n', 'iptables', '-L', 'INPUT', '-n', '-v', '-x'])).stdout;
      const dropped = counted.split('\n').find((line) => line.includes('DROP') && line.includes(first));
      assert.ok(dropped !== undefined && Number(dropped.trim().split(/\s+/)[0]) > 0, `no answer of ${first} was dropped:\n${counted}`);
    } finally {
      await run('nsenter', ['-t', pid, '-n', 'iptables', '-D', ...silence], { allowFailure: true });
    }
  });
});
