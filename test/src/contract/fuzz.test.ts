/**
 * Contract fuzzing: for every operation of the contract, malformed requests generated from its
 * JSON Schemas (and a seeded pseudo-random generator) are sent to a real `svc-local` process, as
 * the administrator and, for a sample, anonymously. Whatever arrives, the server never answers 5xx,
 * every error carries the contract's error shape with a code of its `ErrorCode` enum, no error
 * leaks a stack trace, a file path, SQL or a secret, and the server still answers afterwards.
 *
 * The seed is fixed so failures reproduce; set FUZZ_SEED to explore other inputs.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { operationSpecs, ResponseValidator } from '@svc/server';
import {
  contractClient,
  createKey,
  createUser,
  setupAdmin,
  startServerProcess,
  type ContractClient,
  type LoggedInUser,
  type ServerProcess,
  type TestResponse,
} from '@svc/server/testing';
import { anonymous, authorizationCases, bodyCases, pathCases, queryCases, randomBodyCases, type Case, type Targets } from './fuzzing/cases.js';
import { errorBodyProblems, leaks } from './fuzzing/checks.js';
import { Random } from './fuzzing/random.js';
import { rawCases, rawRequest, type RawResponse } from './fuzzing/raw-http.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed_2026);
const CONCURRENCY = 8;

async function pool<T>(items: readonly T[], worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await worker(item);
      }
    }),
  );
}

describe(`contract fuzzing (seed ${SEED})`, () => {
  let home: string;
  let server: ServerProcess;
  let client: ContractClient;
  let admin: LoggedInUser;
  let victim: LoggedInUser;
  let victimKey: string;
  let targets: Targets;
  const validator = new ResponseValidator();
  const failures: string[] = [];
  let sent = 0;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-fuzz-'));
    server = await startServerProcess({ SVC_HOME: home });
    client = contractClient(server.baseUrl);
    admin = await setupAdmin(client);
    victim = await createUser(client, admin.accessToken, ['models:list', 'keys:create']);
    const key = await createKey(client, admin.accessToken, { name: 'fuzz target', owner: victim.id });
    targets = { userId: victim.id, keyId: key.id };
    victimKey = key.key;
  });

  afterAll(async () => {
    await server?.stop();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  const secrets = () => [admin.password, admin.accessToken, admin.refreshToken, victim.password, victim.accessToken, victim.refreshToken, victimKey, home];

  async function run(testCase: Case): Promise<void> {
    const where = `${testCase.spec.operationId} ${testCase.method} ${testCase.path.slice(0, 120)} [${testCase.label}]`;
    const headers: Record<string, string> = {};
    if (testCase.contentType !== undefined) headers['content-type'] = testCase.contentType;
    if (testCase.authorization === undefined) headers['authorization'] = `Bearer ${admin.accessToken}`;
    else if (testCase.authorization !== null) headers['authorization'] = testCase.authorization;
    let response: TestResponse;
    sent += 1;
    try {
      response = await client.request(testCase.method, testCase.path, { headers, ...(testCase.body === undefined ? {} : { rawBody: testCase.body }) });
    } catch (error) {
      // A contract violation (wrong status or error shape), or the connection failed.
      failures.push(`${where}: ${(error as Error).message}${(error as Error).cause === undefined ? '' : ` (${String((error as Error).cause)})`}`);
      return;
    }
    const { status, text, body } = response;
    if (status >= 500) failures.push(`${where}: ${status} ${text.slice(0, 300)}`);
    if (testCase.expect !== undefined && !testCase.expect.includes(status)) {
      failures.push(`${where}: expected ${testCase.expect.join(' or ')}, got ${status} ${text.slice(0, 300)}`);
    }
    if (status >= 400) {
      for (const problem of errorBodyProblems(body)) failures.push(`${where}: ${problem}: ${text.slice(0, 300)}`);
      for (const leak of leaks(text, secrets())) failures.push(`${where}: the error body leaks ${leak}: ${text.slice(0, 300)}`);
      if (testCase.expectCode !== undefined && body?.error?.code !== testCase.expectCode && testCase.expect?.includes(status)) {
        failures.push(`${where}: expected code ${testCase.expectCode}, got ${text.slice(0, 300)}`);
      }
      if (status === 401 && !/^Bearer\b/.test(response.headers.get('www-authenticate') ?? '')) failures.push(`${where}: 401 without WWW-Authenticate: Bearer`);
    }
  }

  function report(what: string): void {
    assert.ok(sent > 0);
    if (failures.length > 0) {
      const shown = failures.slice(0, 40).join('\n  ');
      assert.fail(`${failures.length} problems in ${what} (seed ${SEED}):\n  ${shown}${failures.length > 40 ? '\n  …' : ''}`);
    }
  }

  it('generates malformed requests for every operation of the contract', () => {
    const random = new Random(SEED);
    const covered = new Set<string>();
    const placeholders: Targets = { userId: 'user', keyId: 'key' };
    for (const spec of operationSpecs) {
      const cases = [
        ...bodyCases(spec, placeholders, random),
        ...pathCases(spec, placeholders),
        ...queryCases(spec, placeholders),
        ...authorizationCases(spec, placeholders, 'token', random),
      ];
      if (cases.length > 0) covered.add(spec.operationId);
    }
    assert.deepEqual(
      operationSpecs.map((s) => s.operationId).filter((id) => !covered.has(id)),
      [],
      'every operation gets malformed requests',
    );
  });

  it('never answers 5xx or a malformed error to malformed requests, as admin and anonymously', async (t) => {
    const random = new Random(SEED);
    const cases: Case[] = [];
    for (const spec of operationSpecs) {
      cases.push(
        ...bodyCases(spec, targets, random),
        ...randomBodyCases(spec, targets, random, 6),
        ...pathCases(spec, targets),
        ...queryCases(spec, targets),
        ...authorizationCases(spec, targets, admin.accessToken, random),
      );
    }
    const anonymousSample = cases.filter((c) => c.authorization === undefined && random.chance(0.15)).map(anonymous);
    await pool([...cases, ...anonymousSample], run);
    await t.annotate(`${sent} requests (${anonymousSample.length} anonymous) over ${operationSpecs.length} operations`);
    report('fuzzed requests');
  });

  it('answers raw malformed HTTP (control characters, duplicate headers, broken framing) with the error shape', async (t) => {
    const before = failures.length;
    const cases = rawCases(admin.accessToken);
    await pool(cases, async (testCase) => {
      sent += 1;
      let response: RawResponse;
      try {
        response = await rawRequest(server.baseUrl, Buffer.from(testCase.request, 'latin1'));
      } catch (error) {
        failures.push(`raw [${testCase.label}]: ${(error as Error).message}`);
        return;
      }
      const where = `raw [${testCase.label}] → ${response.status}`;
      let parsed: unknown;
      if (response.body !== '') {
        try {
          parsed = JSON.parse(response.body);
        } catch {
          failures.push(`${where}: body is not JSON: ${response.body.slice(0, 200)}`);
          return;
        }
      }
      if (response.status >= 500) failures.push(`${where}: ${response.body.slice(0, 300)}`);
      if (testCase.expect !== undefined && !testCase.expect.includes(response.status)) {
        failures.push(`${where}: expected ${testCase.expect.join(' or ')}: ${response.body.slice(0, 300)}`);
      }
      // A routed answer must match the operation's documented responses; an answer given before
      // routing must still be the contract's Error (validated as the 400 every operation documents).
      const violation =
        testCase.route !== null
          ? validator.check(testCase.route.method, testCase.route.path, response.status, parsed)
          : response.status >= 400
            ? validator.check('GET', '/status', 400, parsed)
            : null;
      if (violation !== null) failures.push(`${where}: contract violation: ${violation}; body: ${response.body.slice(0, 300)}`);
      if (response.status >= 400) {
        for (const problem of errorBodyProblems(parsed)) failures.push(`${where}: ${problem}: ${response.body.slice(0, 300)}`);
        for (const leak of leaks(response.body, secrets())) failures.push(`${where}: the error body leaks ${leak}`);
        if (testCase.expectCode !== undefined && (parsed as { error?: { code?: string } } | undefined)?.error?.code !== testCase.expectCode) {
          failures.push(`${where}: expected code ${testCase.expectCode}: ${response.body.slice(0, 300)}`);
        }
      }
    });
    await t.annotate(`${cases.length} raw requests`);
    assert.equal(failures.length, before, failures.slice(before).join('\n'));
  });

  it('is still up and serving afterwards', async () => {
    assert.equal(server.child.exitCode, null, `svc-local exited; stderr: ${server.stderr()}`);
    const status = await client.request('GET', '/status');
    assert.equal(status.status, 200);
    assert.equal(status.body.status, 'ok');
    const me = await client.request('GET', '/v1/auth/me', { token: admin.accessToken });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.permissions, ['admin']);
    const users = await client.request('GET', '/v1/admin/users', { token: admin.accessToken });
    assert.equal(users.status, 200);
    assert.ok(users.body.some((u: { id: string }) => u.id === admin.id));
  });
});
