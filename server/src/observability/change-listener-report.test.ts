/**
 * The change-feed listener's state in `/status` and `/metrics`, on a real PostgreSQL with a real
 * server: connected, how often it reconnected, how long ago (on the server's clock) the last
 * notification arrived; and, with its connection killed by `pg_terminate_backend` and its role
 * kept from logging in, reported down while `/status` keeps answering 200, then back with one
 * reconnection once the role may log in again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { pollUntil, setupAdmin, startTestServer, type LoggedInUser, type TestServer } from '../testing/index.js';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database.js';
import { changeListenerReport } from './change-listener-report.js';

/** Runs `statement` on the test cluster's maintenance database. */
async function maintenance(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('svcPostgresUrl') });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** One `metric value` line of a Prometheus text exposition, as a number. */
function metric(text: string, name: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  assert.ok(line !== undefined, `${name} is missing from /metrics`);
  return Number(line.slice(name.length + 1));
}

describe('changeListenerReport', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 4, 0, 0));

  it('Should be null where there is no listener (SQLite)', () => {
    assert.equal(changeListenerReport({ listenerStatus: () => null }, clock), null);
  });

  it('Should measure the age of the last notification on the given clock, never below zero', () => {
    const at = clock.now() - 2500;
    assert.deepEqual(changeListenerReport({ listenerStatus: () => ({ listening: true, reconnects: 2, lastNotificationAt: at }) }, clock), {
      listening: true,
      reconnects: 2,
      lastNotificationAgeSeconds: 2.5,
    });
    const ahead = changeListenerReport({ listenerStatus: () => ({ listening: false, reconnects: 0, lastNotificationAt: clock.now() + 1000 }) }, clock);
    assert.equal(ahead?.lastNotificationAgeSeconds, 0);
  });
});

describe('the change-feed listener in /status and /metrics on PostgreSQL', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 4, 0, 0));
  const role = `svc_listener_${process.pid}_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(16).toString('hex');
  let database: TestDatabase;
  let server: TestServer;
  let admin: LoggedInUser;

  const status = async () => {
    const response = await server.request('GET', '/status');
    assert.equal(response.status, 200, `/status is liveness: ${response.text}`);
    return response.body.change_listener as { listening: boolean; reconnects: number; last_notification_age_seconds: number | null };
  };
  const metrics = async () => {
    const response = await server.request('GET', '/metrics', { token: admin.accessToken });
    assert.equal(response.status, 200, response.text);
    return response.text;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // A login role of the server's own, so that the test can keep its listener from reconnecting.
    await maintenance(`CREATE ROLE "${role}" LOGIN SUPERUSER PASSWORD '${password}'`);
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    server = await startTestServer({
      env: { SVC_DATABASE_URL: url.toString(), SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'), SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
      clock,
    });
  });

  afterAll(async () => {
    await server?.close();
    await database?.drop();
    await maintenance(`DROP ROLE IF EXISTS "${role}"`);
  });

  it('Should report a connected listener that has heard nothing yet', async () => {
    assert.deepEqual(await status(), { listening: true, reconnects: 0, last_notification_age_seconds: null });
  });

  it('Should report the age of the last notification on the server clock, in /status and /metrics', async () => {
    admin = await setupAdmin(server);
    // The setup's commit is announced on the listening connection; its arrival is asynchronous.
    const heard = await pollUntil(status, (state) => state.last_notification_age_seconds !== null, { timeoutMs: 30_000, intervalMs: 20 });
    assert.equal(heard.at(-1)?.last_notification_age_seconds, 0);
    clock.advance(90_000);
    assert.equal((await status()).last_notification_age_seconds, 90);
    const text = await metrics();
    assert.equal(metric(text, 'svc_change_listener_up'), 1);
    assert.equal(metric(text, 'svc_change_listener_reconnects_total'), 0);
    assert.equal(metric(text, 'svc_change_listener_last_notification_age_seconds'), 90);
    assert.match(text, /# TYPE svc_change_listener_reconnects_total counter/);
  });

  it('Should report the listener down while its connection is killed and cannot come back, with /status still 200', async () => {
    await maintenance(`ALTER ROLE "${role}" NOLOGIN`);
    await maintenance(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-listener' AND usename = '${role}'`);
    const states = await pollUntil(status, (state) => !state.listening, { timeoutMs: 30_000, intervalMs: 20 });
    assert.equal(states.at(-1)?.listening, false);
    assert.equal(states.at(-1)?.reconnects, 0);
    assert.equal(metric(await metrics(), 'svc_change_listener_up'), 0);
  });

  it('Should report it back, with one reconnection, once it may log in again', async () => {
    await maintenance(`ALTER ROLE "${role}" LOGIN`);
    const states = await pollUntil(status, (state) => state.listening, { timeoutMs: 60_000, intervalMs: 50 });
    assert.deepEqual({ ...states.at(-1), last_notification_age_seconds: undefined }, { listening: true, reconnects: 1, last_notification_age_seconds: undefined });
    const text = await metrics();
    assert.equal(metric(text, 'svc_change_listener_up'), 1);
    assert.equal(metric(text, 'svc_change_listener_reconnects_total'), 1);
  });
});
