/**
 * A deployment for the multi-host tests: one real PostgreSQL server of the test's own (so the fault
 * tests may stop and start it), one database in it, and any number of real `svc-local` processes
 * naming that database with the same two secrets, as hosts of one deployment would.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { contractClient, startLocalPostgresCluster, startServerProcess, type ContractClient, type PostgresCluster, type ServerProcess, type TestSecuritySettings } from '@svc/server/testing';

/** One host: its process and a client of it. */
export interface Host {
  readonly process: ServerProcess;
  readonly client: ContractClient;
}

/** A PostgreSQL database and the svc hosts started on it. */
export interface Deployment {
  readonly cluster: PostgresCluster;
  /** The database's URL (holds the password: never print it). */
  readonly databaseUrl: string;
  /** The variables every host of this deployment starts with. */
  readonly environment: Record<string, string>;
  readonly hosts: Host[];
  /** Starts one more host. */
  startHost(): Promise<Host>;
  /** Runs `statement` on the database directly (the test's own view of what was committed). */
  query<Row extends pg.QueryResultRow>(statement: string, values?: unknown[]): Promise<Row[]>;
  /** Stops every host (SIGTERM) and the PostgreSQL server, deleting its data. */
  destroy(): Promise<void>;
}

/**
 * Starts a PostgreSQL server and `hostCount` svc processes on one fresh database. The hosts trust
 * 127.0.0.1 as a proxy, so tests pick the client address with `X-Forwarded-For`.
 */
export async function startDeployment(hostCount: number, options: { securitySettings?: TestSecuritySettings; cluster?: PostgresCluster } = {}): Promise<Deployment> {
  const ownCluster = options.cluster === undefined;
  const cluster = options.cluster ?? (await startTestCluster());
  const hosts: Host[] = [];
  // A home for what svc keeps outside the database (logs, model files); the state is in PostgreSQL.
  const home = await mkdtemp(join(tmpdir(), 'svc-multi-host-'));
  try {
    const databaseUrl = await cluster.createDatabase();
    const environment = {
      SVC_HOME: home,
      SVC_DATABASE_URL: databaseUrl,
      SVC_DATABASE_POOL_MAX: '4',
      SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
      SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SVC_TRUSTED_PROXIES: '127.0.0.1',
    };
    const startHost = async (): Promise<Host> => {
      const process = await startServerProcess(environment, [], options.securitySettings === undefined ? {} : { securitySettings: options.securitySettings });
      const host = { process, client: contractClient(process.baseUrl) };
      hosts.push(host);
      return host;
    };
    // Started together: they migrate the empty database once, under the migration lock.
    await Promise.all(Array.from({ length: hostCount }, () => startHost()));
    return {
      cluster,
      databaseUrl,
      environment,
      hosts,
      startHost,
      async query<Row extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<Row[]> {
        const client = new pg.Client({ connectionString: databaseUrl });
        client.on('error', () => {});
        await client.connect();
        try {
          return (await client.query<Row>(statement, values)).rows;
        } finally {
          await client.end();
        }
      },
      async destroy() {
        await Promise.all(hosts.map((host) => host.process.stop()));
        if (ownCluster) await cluster.stop();
        else await cluster.dropDatabase(databaseUrl);
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(hosts.map((host) => host.process.kill()));
    if (ownCluster) await cluster.stop();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A local PostgreSQL server of the test's own (so it may be stopped and started). Tried three
 * times: on a machine where other test runs start servers too, an older harness's sweep of
 * abandoned directories could remove a data directory while initdb was still filling it.
 */
export async function startTestCluster(): Promise<PostgresCluster> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await startLocalPostgresCluster();
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !/initdb exited/.test(error.message)) throw error;
    }
  }
  throw lastError;
}
