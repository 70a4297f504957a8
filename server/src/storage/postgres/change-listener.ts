/**
 * The fast half of cross-host invalidation: one dedicated connection per process that `LISTEN`s on
 * `svc_cache`, where the cache-epoch triggers (migration 004) announce `<domain>:<epoch>` at commit.
 * A notification drops the domain's caches at once; a lost connection drops every domain (a change
 * may be missed while down) and reconnects with capped, jittered backoff. Correctness never rests on
 * it: the epoch gate decides every request. Its state ({@link ChangeListener.status}: connected or
 * not, reconnections, when the last notification arrived) is reported in `/status` and `/metrics`.
 */
import pg from 'pg';
import type { CacheDomain, ChangeListenerStatus } from '../port/index.js';

const CHANNEL = 'svc_cache';
const domains: readonly CacheDomain[] = ['access', 'bans', 'models'];
const isDomain = (value: string): value is CacheDomain => (domains as readonly string[]).includes(value);

/** Options of {@link ChangeListener}. */
export interface ChangeListenerOptions {
  /** First reconnect delay in milliseconds, doubled up to {@link maxBackoffMs}. @default 100 */
  initialBackoffMs?: number;
  /** @default 5000 */
  maxBackoffMs?: number;
  /** How often an idle listener proves its connection with `SELECT 1`. @default 5000 */
  heartbeatMs?: number;
  /** Hears when the listening connection is lost (once per outage) and when it is back. */
  onWarning?: (message: string, error?: unknown) => void;
  /** The time (epoch ms) a notification is stamped with: the server's injected clock. @default Date.now */
  now?: () => number;
}

/** A LISTEN connection that reconnects by itself. */
export class ChangeListener {
  readonly #connection: pg.ClientConfig;
  readonly #onChange: (domain: CacheDomain) => void;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #heartbeatMs: number;
  readonly #onWarning: (message: string, error?: unknown) => void;
  readonly #now: () => number;
  #client: pg.Client | null = null;
  #listening = false;
  #closed = false;
  /** Lost and not yet back (warn once per outage). */
  #outage = false;
  #backoffMs: number;
  /** Connected at least once: a later connection is a reconnection. */
  #connectedBefore = false;
  #reconnects = 0;
  #lastNotificationAt: number | null = null;
  #reconnect: NodeJS.Timeout | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  /** The last epoch heard per domain; an epoch read above it means a notification was late or lost. */
  readonly lastHeard = new Map<CacheDomain, number>();

  constructor(connection: pg.ClientConfig, onChange: (domain: CacheDomain) => void, options: ChangeListenerOptions = {}) {
    this.#connection = connection;
    this.#onChange = onChange;
    this.#initialBackoffMs = options.initialBackoffMs ?? 100;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.#heartbeatMs = options.heartbeatMs ?? 5000;
    this.#onWarning = options.onWarning ?? (() => {});
    this.#now = options.now ?? Date.now;
    this.#backoffMs = this.#initialBackoffMs;
  }

  /** Connected and listening. */
  get listening(): boolean {
    return this.#listening;
  }

  /** Connected or not, how many reconnections, when the last notification arrived. */
  status(): ChangeListenerStatus {
    return { listening: this.#listening, reconnects: this.#reconnects, lastNotificationAt: this.#lastNotificationAt };
  }

  /** Connects once (a failure schedules retries; it does not throw). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    if (this.#reconnect !== null) clearTimeout(this.#reconnect);
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ ...this.#connection, application_name: 'svc-listener', keepAlive: true, query_timeout: 2000 });
    this.#client = client;
    // Both events arrive when the backend dies (often 'error' twice); the first one counts.
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => this.#heard(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.#lost(client, error);
      return;
    }
    if (this.#client !== client || this.#closed) return;
    this.#listening = true;
    if (this.#connectedBefore) this.#reconnects += 1;
    this.#connectedBefore = true;
    if (this.#outage) this.#onWarning('cache invalidation listener reconnected');
    this.#outage = false;
    this.#backoffMs = this.#initialBackoffMs;
    // Anything committed while no one listened is unknown: drop every cache once.
    for (const domain of domains) this.#onChange(domain);
    this.#heartbeat = setInterval(() => {
      client.query('SELECT 1').catch((error: unknown) => this.#lost(client, error));
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  #heard(payload: string): void {
    const [domain, epoch] = payload.split(':');
    if (domain === undefined || !isDomain(domain)) return;
    this.#lastNotificationAt = this.#now();
    const heard = Number(epoch);
    if (Number.isSafeInteger(heard)) this.lastHeard.set(domain, heard);
    this.#onChange(domain);
  }

  #lost(client: pg.Client, error?: unknown): void {
    if (this.#client !== client) return; // an older connection's late event
    if (!this.#outage && !this.#closed) this.#onWarning('cache invalidation listener lost its connection; requests still check the epochs, reconnecting', error);
    this.#outage = true;
    this.#client = null;
    const wasListening = this.#listening;
    this.#listening = false;
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    client.end().catch(() => undefined);
    if (wasListening) for (const domain of domains) this.#onChange(domain);
    if (this.#closed) return;
    const delay = Math.min(this.#backoffMs, this.#maxBackoffMs) * (0.5 + Math.random() / 2);
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#maxBackoffMs);
    this.#reconnect = setTimeout(() => {
      this.#reconnect = null;
      void this.#connect();
    }, delay);
    this.#reconnect.unref();
  }
}
