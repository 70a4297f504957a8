/**
 * The kept-alive connections to upstream model servers: one `node:http` and one `node:https` agent,
 * no limit on connections per upstream (a call never waits for another call's connection), idle
 * connections reused oldest first, every address checked at connect time by the upstream policy.
 *
 * Why not undici (which svc used first): before writing a request on a reused connection, undici
 * always waits for the next turn of the event loop (its defence against response-queue poisoning,
 * GHSA-35p6-xmwp-9g52), so every request that arrives in a busy turn waits for all the others of
 * that turn, and the answers come back in the same clumps. At 32 connections against a model that
 * answers in 20 ms, that wait was most of what svc added (see `bench/README.md`, "Upstream engine").
 *
 * The same defence, paid only when it matters: a connection that goes idle is watched, and bytes the
 * upstream sends on it unasked close it (they are never read as the answer to a later call). A
 * connection idle since an earlier turn has been through a poll of the event loop, so whatever the
 * upstream sent before it went quiet has been seen: it is written to at once. Only a connection that
 * went idle during the current turn holds its next request (corked) until the turn's I/O has been
 * read, as undici does for every request.
 */
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';

/** Counters of the upstream connections, for tests and diagnostics. */
export interface UpstreamConnectionStats {
  /** Connections opened since the engine started. */
  opened: number;
  /** Connections open now, busy or idle. */
  open: number;
  /** The most connections open at the same time. */
  mostOpen: number;
  /** Requests written on a reused connection. */
  reused: number;
  /** Requests held until the end of the turn because their connection went idle during it. */
  heldForIdleCheck: number;
  /** Idle connections closed because the upstream sent bytes nobody asked for. */
  closedForUnsolicitedBytes: number;
}

/** Per-socket state of an idle connection. */
interface IdleState {
  /** True once a turn of the event loop has passed since the connection went idle. */
  checked: boolean;
  /** A request is corked on the connection until the check. */
  holding: boolean;
  /** Closes the connection when the upstream sends unasked bytes. */
  onData: () => void;
  immediate: NodeJS.Immediate;
}

const idleState = Symbol('svcUpstreamIdle');
const unsolicited = Symbol('svcUpstreamUnsolicited');

type GuardedSocket = Socket & { [idleState]?: IdleState; [unsolicited]?: boolean };

/** The kept-alive agents svc calls upstream model servers through. One per upstream engine. */
export class UpstreamConnections {
  readonly #stats: UpstreamConnectionStats = { opened: 0, open: 0, mostOpen: 0, reused: 0, heldForIdleCheck: 0, closedForUnsolicitedBytes: 0 };
  readonly #known = new WeakSet<Socket>();
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;

  /**
   * @param lookup - resolves upstream host names; refuses the addresses the policy does not allow.
   * @param idleMs - how long an idle connection is kept (shorter when the upstream's `Keep-Alive`
   *   header says it closes sooner).
   */
  constructor(lookup: LookupFunction, idleMs: number) {
    const options = { keepAlive: true, timeout: idleMs, scheduling: 'fifo' as const, lookup };
    this.#http = this.#guard(new HttpAgent(options));
    this.#https = this.#guard(new HttpsAgent(options));
  }

  /** The agent for a URL's protocol. */
  agentFor(url: URL): HttpAgent {
    return url.protocol === 'https:' ? this.#https : this.#http;
  }

  /** Counts `request`'s connection once it has one. */
  track(request: ClientRequest): void {
    request.once('socket', (socket: Socket) => {
      if (this.#known.has(socket)) return;
      this.#known.add(socket);
      this.#stats.opened += 1;
      this.#stats.open += 1;
      this.#stats.mostOpen = Math.max(this.#stats.mostOpen, this.#stats.open);
      socket.once('close', () => (this.#stats.open -= 1));
    });
  }

  /** True when the connection was closed because the upstream sent bytes while it was idle. */
  sentUnsolicitedBytes(socket: Socket | null): boolean {
    return (socket as GuardedSocket | null)?.[unsolicited] === true;
  }

  /** A copy of the counters. */
  stats(): UpstreamConnectionStats {
    return { ...this.#stats };
  }

  /** Closes every connection. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #guard<A extends HttpAgent>(agent: A): A {
    const keepSocketAlive = agent.keepSocketAlive.bind(agent) as (socket: Socket) => boolean;
    const reuseSocket = agent.reuseSocket.bind(agent);
    agent.keepSocketAlive = ((socket: Socket) => {
      if (!keepSocketAlive(socket)) return false;
      this.#watchIdle(socket as GuardedSocket);
      return true;
    }) as HttpAgent['keepSocketAlive'];
    agent.reuseSocket = (socket, request) => {
      reuseSocket(socket, request);
      this.#stats.reused += 1;
      this.#takeIdle(socket as GuardedSocket);
    };
    return agent;
  }

  #watchIdle(socket: GuardedSocket): void {
    const state: IdleState = {
      checked: false,
      holding: false,
      onData: () => {
        socket[unsolicited] = true;
        this.#stats.closedForUnsolicitedBytes += 1;
        socket.destroy();
      },
      immediate: setImmediate(() => {
        state.checked = true;
        if (!state.holding) return;
        state.holding = false;
        socket.off('data', state.onData);
        if (!socket.destroyed) socket.uncork();
      }),
    };
    // Only a held request needs the check to run; an idle connection alone does not keep svc alive.
    state.immediate.unref();
    socket[idleState] = state;
    socket.on('data', state.onData);
  }

  #takeIdle(socket: GuardedSocket): void {
    const state = socket[idleState];
    if (state === undefined) return;
    delete socket[idleState];
    if (state.checked) {
      socket.off('data', state.onData);
      return;
    }
    // Went idle during this turn: the request is written once the turn's I/O has been read, and the
    // watch stays on until then (a response parsed from unasked bytes is refused by the engine).
    this.#stats.heldForIdleCheck += 1;
    state.holding = true;
    socket.cork();
    state.immediate.ref();
  }
}
