/**
 * How the offline tools (`svc-audit-verify`, `svc-migrate-storage`) reach their database: an
 * operator's one-off command, often run right after `compose up`, waits for a PostgreSQL that is
 * not ready yet (still starting, its network or name not up yet) instead of failing on the first
 * try, and says plainly what it waited for when it gives up. A request never waits like this: the
 * server answers 503 at once.
 */
import { systemClock, type Clock } from '../runtime/clock.js';
import { openStorage, type StorageConfig } from './open-storage.js';
import { StorageUnavailableError, type Storage } from './port/index.js';
import { CONNECT_TIMEOUT_MESSAGE, isNotReadyYet } from './postgres/errors.js';

/**
 * How long one attempt of an offline tool waits for a PostgreSQL connection to be ready, the name
 * lookup included. Generous: a resolver whose first nameserver does not answer makes one lookup take
 * 15 s (glibc waits 5 s per query), as podman 4.3's aardvark-dns 1.4 can leave a network's
 * nameserver after containers restart. libpq itself waits without limit.
 */
export const OFFLINE_TOOL_CONNECT_TIMEOUT_MS = 30_000;
/** How long an offline tool keeps trying while the database is not ready yet before it gives up. */
export const OFFLINE_TOOL_WAIT_MS = 60_000;
/** The pause between two attempts. */
export const OFFLINE_TOOL_RETRY_PAUSE_MS = 500;

/** How {@link whileNotReady} waits: the clock it reads and how it pauses (tests pass a manual clock). */
export interface RetryTiming {
  clock: Clock;
  pause: (ms: number) => Promise<void>;
}

const realTiming: RetryTiming = { clock: systemClock, pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * `attempt()`, tried again while it fails because the database is not ready yet
 * ({@link isNotReadyYet}), pausing {@link OFFLINE_TOOL_RETRY_PAUSE_MS} between tries, until
 * `withinMs` have passed since the first try. Then it gives up with a
 * {@link StorageUnavailableError} that says how long it waited and what the last try answered.
 * Any other failure (refused, a wrong password, no such database, a schema error) is thrown at once.
 */
export async function whileNotReady<T>(attempt: () => Promise<T>, withinMs: number, timing: RetryTiming = realTiming): Promise<T> {
  const started = timing.clock.now();
  for (let attempts = 1; ; attempts += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isNotReadyYet(error)) throw error;
      if (timing.clock.now() + OFFLINE_TOOL_RETRY_PAUSE_MS > started + withinMs) {
        const waited = Math.round((timing.clock.now() - started) / 1000);
        throw new StorageUnavailableError(`the database was not ready after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in ${waited} s; the last: ${describeNotReady(error)}`, { cause: error });
      }
    }
    await timing.pause(OFFLINE_TOOL_RETRY_PAUSE_MS);
  }
}

/**
 * {@link openStorage} as an offline tool opens it: {@link OFFLINE_TOOL_CONNECT_TIMEOUT_MS} per
 * attempt, tried again for {@link OFFLINE_TOOL_WAIT_MS}, without the LISTEN connection (a tool
 * caches nothing, so it needs no word of changes).
 */
export function openStorageForTool(config: StorageConfig): Promise<Storage> {
  return whileNotReady(() => openStorage(config, { connectTimeoutMs: OFFLINE_TOOL_CONNECT_TIMEOUT_MS, listen: false }), OFFLINE_TOOL_WAIT_MS);
}

/** The last failure in words: pg's bare `timeout expired` says what timed out. */
function describeNotReady(error: unknown): string {
  const original = error instanceof StorageUnavailableError ? error.cause : error;
  const message = error instanceof Error ? error.message : String(error);
  if (original instanceof Error && original.message === CONNECT_TIMEOUT_MESSAGE) {
    return `no connection was ready within ${OFFLINE_TOOL_CONNECT_TIMEOUT_MS / 1000} s (${CONNECT_TIMEOUT_MESSAGE})`;
  }
  return message;
}
