/**
 * `before`/`after` hooks that give a `describe` block its own test server (and, optionally, its
 * first admin), started once before the block's tests and closed after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { setupAdmin, type LoggedInUser } from './fixtures.js';
import { startTestServer, type TestServer } from './test-server.js';

/** What {@link startTestServer} accepts: extra environment, configuration overrides, a home to reuse. */
export type TestServerOptions = NonNullable<Parameters<typeof startTestServer>[0]>;

/** The server of a `describe` block, readable once the block's `before` hooks ran. */
export interface ServerHandle {
  /** The running server; reading it before the block's `before` hook ran throws. */
  readonly server: TestServer;
}

/** The server of a `describe` block and its first admin, readable once the block's `before` hooks ran. */
export interface ServerWithAdminHandle extends ServerHandle {
  /** The first admin, logged in; reading it before the block's `before` hook ran throws. */
  readonly admin: LoggedInUser;
}

function notReady(helper: string, what: string): Error {
  return new Error(`${helper}: ${what} was read before the before() hook ran; read it inside a test or a hook, not in the describe body`);
}

function registerServer(helper: string, options: TestServerOptions | undefined, afterStart?: (server: TestServer) => Promise<void>): ServerHandle {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    await afterStart?.(server);
  });
  afterAll(() => server?.close());
  return {
    get server() {
      if (server === undefined) throw notReady(helper, 'server');
      return server;
    },
  };
}

/**
 * Registers, in the current `describe` block, a `before` hook that starts a test server and an
 * `after` hook that closes it. Call it in the block's body, before the block's own hooks (which then
 * run after the server started).
 *
 * @param options - passed to {@link startTestServer}.
 * @returns a handle whose `server` getter answers the running server.
 */
export function useServer(options?: TestServerOptions): ServerHandle {
  return registerServer('useServer', options);
}

/**
 * Like {@link useServer}, and the `before` hook also runs first-run setup and logs the admin in
 * ({@link setupAdmin}).
 *
 * @param options - passed to {@link startTestServer}.
 * @returns a handle whose `server` and `admin` getters answer the running server and its admin.
 */
export function useServerWithAdmin(options?: TestServerOptions): ServerWithAdminHandle {
  let admin: LoggedInUser | undefined;
  const handle = registerServer('useServerWithAdmin', options, async (server) => {
    admin = await setupAdmin(server);
  });
  return {
    get server() {
      return handle.server;
    },
    get admin() {
      if (admin === undefined) throw notReady('useServerWithAdmin', 'admin');
      return admin;
    },
  };
}
