/**
 * The audit trail of a server process: records are queued in memory (as their canonical encoding)
 * and appended in batches, one transaction per batch, by a writer thread with its own database
 * connection, so a request never waits for the disk nor pays for the inserts and hashes.
 *
 * The queue is flushed when it holds {@link FLUSH_BATCH_SIZE} records (on the next turn of the event
 * loop), {@link FLUSH_INTERVAL_MS} after the first record was queued, before a search, verify or
 * export reads the log, and when the server closes. A crash (SIGKILL, power loss) can therefore lose
 * at most the records of the last {@link FLUSH_INTERVAL_MS} ms (and never more than
 * {@link MAX_QUEUED} records); a clean stop loses nothing. If the database refuses a batch (busy,
 * full), the records stay queued and the next flush retries.
 *
 * Overload: the records held in memory (queued, handed to the writer and not yet committed) never
 * exceed {@link MAX_QUEUED}. When the writer falls that far behind, new records are dropped and
 * counted (never silently): each drop is reported to the drop listeners (the `/metrics` counter
 * `svc_audit_dropped_total`), logged once per episode, and once a batch commits again the trail
 * itself records an `audit_dropped` event with how many records were lost and when.
 */
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { keySubject, type BruteForceEvent, type BruteForceListener } from '../brute-force/brute-force-service.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { AuditStore } from '../storage/port/audit.js';
import { appendEncodings, canonicalEncoding, cleanText, type AuditEntry } from './audit-entry.js';
import type { WriterReply, WriterRequest } from './audit-writer-thread.js';
import { siblingModule, startWorker } from '../runtime/source-runtime.js';

/** Flush once this many records are queued. */
export const FLUSH_BATCH_SIZE = 512;
/** Flush at most this long after a record was queued. */
export const FLUSH_INTERVAL_MS = 100;
/** The most records held in memory (queued or being written) before new ones are dropped and counted. */
export const MAX_QUEUED = 100_000;
/** How often retention pruning runs (also once at start-up). */
const PRUNE_INTERVAL_MS = 6 * 60 * 60 * 1000;
const PRUNE_BATCH = 10_000;

/** An event that is not one API call (start-up, a ban, an offline tool's action). */
export interface AuditEvent {
  event_type: string;
  action: string;
  status: string;
  category?: string;
  auth_type?: string;
  user_id?: string | null;
  username?: string | null;
  target?: string | null;
  reason?: string | null;
  client_ip?: string | null;
  details?: Record<string, unknown> | null;
}

/** Builds a full entry for an event, cleaning its text. */
export function eventEntry(event: AuditEvent, timestamp: number): AuditEntry {
  return {
    timestamp,
    event_type: cleanText(event.event_type) ?? 'event',
    category: event.category ?? 'system',
    auth_type: event.auth_type ?? 'none',
    user_id: cleanText(event.user_id),
    username: cleanText(event.username),
    api_key_id: null,
    api_key_name: null,
    api_key_prefix: null,
    model_id: null,
    model_name: null,
    model_type: null,
    method: null,
    route: null,
    endpoint: null,
    action: cleanText(event.action) ?? 'event',
    target: cleanText(event.target),
    status: cleanText(event.status) ?? 'success',
    http_status: null,
    reason: cleanText(event.reason),
    request_id: null,
    latency_ms: null,
    client_ip: cleanText(event.client_ip),
    details: event.details === undefined || event.details === null ? null : JSON.stringify(event.details),
  };
}

/**
 * Where the trail writes: a writer thread with its own SQLite connection (the server on SQLite), or
 * this thread through the store (tests, tools, and a database reached over the network).
 */
export type AuditWriteMode = { thread: true; databasePath: string } | { thread: false };

/** Tuning of a trail (tests shrink the bound). */
export interface AuditTrailOptions {
  /** The most records held in memory before new ones are dropped. @default {@link MAX_QUEUED} */
  maxQueued?: number;
  /** Where write failures are logged. @default nowhere */
  log?: FastifyBaseLogger;
}

/** Told how many records were just dropped because the writer fell behind. */
export type AuditDropListener = (count: number) => void;

/** Records dropped since the last `audit_dropped` event, and when. */
interface DropEpisode {
  count: number;
  firstAt: number;
  lastAt: number;
}

/** Queues and writes the records of one process. */
export class AuditTrail implements BruteForceListener {
  readonly #store: AuditStore;
  readonly #retentionDays: number;
  readonly #clock: Clock;
  /** Batches being written on this thread. */
  readonly #writingHere = new Set<Promise<void>>();
  #worker: Worker | null;
  readonly #log: FastifyBaseLogger | null;
  /** Canonical encodings waiting to be sent. */
  #queue: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushScheduled = false;
  #pruneTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #nextBatch = 0;
  /** Batches sent to the writer thread and not answered yet, with who waits for them. */
  readonly #inFlight = new Map<number, { lines: string[]; waiters: (() => void)[] }>();
  /** Records handed to the writer (thread or this thread) and not committed yet. */
  #writing = 0;
  readonly #maxQueued: number;
  readonly #dropListeners: AuditDropListener[] = [];
  /** Drops not yet recorded as an `audit_dropped` event. */
  #unreported: DropEpisode | null = null;
  #droppedTotal = 0;

  constructor(
    store: AuditStore,
    retentionDays: number,
    mode: AuditWriteMode = { thread: false },
    clock: Clock = systemClock,
    options: AuditTrailOptions = {},
  ) {
    this.#store = store;
    this.#retentionDays = retentionDays;
    this.#clock = clock;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.#log = options.log ?? null;
    if (mode.thread) {
      this.#worker = startWorker(siblingModule('./audit-writer-thread', import.meta.url), { workerData: { databasePath: mode.databasePath } });
      this.#worker.on('message', (reply: WriterReply) => this.#settle(reply));
      this.#worker.on('error', (error) => this.#log?.error({ err: error }, 'audit writer thread failed; writing on the main thread from now on'));
      this.#worker.on('exit', () => this.#writerGone());
      this.#worker.unref();
    } else {
      this.#worker = null;
    }
  }

  /** Is told of every drop (the metrics count them). */
  onDrop(listener: AuditDropListener): void {
    this.#dropListeners.push(listener);
  }

  /** Records dropped by this trail since it started because the writer fell behind. */
  get droppedTotal(): number {
    return this.#droppedTotal;
  }

  /** Records held in memory: queued, or handed to the writer and not committed yet. */
  get held(): number {
    return this.#queue.length + this.#writing;
  }

  /**
   * Queues a record (the hot path: one JSON encoding, no I/O). When {@link MAX_QUEUED} records are
   * already held the record is dropped and counted instead.
   */
  enqueue(entry: AuditEntry): void {
    if (this.held >= this.#maxQueued) {
      this.#drop(1);
      return;
    }
    this.#push(canonicalEncoding(entry));
  }

  /** Queues an encoding and schedules its flush. */
  #push(encoding: string): void {
    this.#queue.push(encoding);
    if (this.#closed) {
      void this.flush();
      return;
    }
    if (this.#queue.length >= FLUSH_BATCH_SIZE) {
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => {
          this.#flushScheduled = false;
          void this.flush();
        });
      }
    } else if (this.#timer === null) {
      this.#flushAfter(FLUSH_INTERVAL_MS);
    }
  }

  /** Flushes after `delayMs` (the timer does not keep the process alive). */
  #flushAfter(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, delayMs);
    this.#timer.unref();
  }

  /** Queues an event record. */
  recordEvent(event: AuditEvent): void {
    this.enqueue(eventEntry(event, this.#clock.now()));
  }

  /**
   * Sends every queued record to be written; resolves when everything queued so far (and every
   * batch already sent) is committed, or has failed and been queued again for the next flush.
   */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const lines = this.#queue;
    this.#queue = [];
    if (lines.length > 0) {
      if (this.#worker === null) {
        this.#writeHere(lines);
      } else {
        const batch = (this.#nextBatch += 1);
        this.#inFlight.set(batch, { lines, waiters: [] });
        this.#writing += lines.length;
        const request: WriterRequest = { batch, lines: lines.join('\n') };
        // Keep the process alive while a batch is being written; idle, the thread holds nothing open.
        this.#worker.ref();
        this.#worker.postMessage(request);
      }
    }
    const pending = [...this.#inFlight.values()].map((entry) => new Promise<void>((resolve) => entry.waiters.push(resolve)));
    return Promise.all([...pending, ...this.#writingHere]).then(() => undefined);
  }

  /** Appends a batch through the store on this thread; a failure queues it again. Never rejects. */
  #writeHere(lines: string[]): Promise<void> {
    this.#writing += lines.length;
    const writing = appendEncodings(this.#store, lines).then(
      () => {
        this.#writing -= lines.length;
        this.#committed();
      },
      (error: unknown) => {
        this.#writing -= lines.length;
        this.#requeue(lines, error);
      },
    );
    this.#writingHere.add(writing);
    void writing.finally(() => this.#writingHere.delete(writing));
    return writing;
  }

  #settle(reply: WriterReply): void {
    const entry = this.#inFlight.get(reply.batch);
    if (entry === undefined) return;
    this.#inFlight.delete(reply.batch);
    this.#writing -= entry.lines.length;
    if (this.#inFlight.size === 0) this.#worker?.unref();
    if (reply.error !== undefined) this.#requeue(entry.lines, reply.error);
    else this.#committed();
    for (const waiter of entry.waiters) waiter();
  }

  /**
   * The writer thread ended (an error, or `close`): what it had not confirmed is written here, and
   * later batches are written on this thread. Nobody waiting for a flush is left hanging.
   */
  #writerGone(): void {
    this.#worker = null;
    const unconfirmed = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const entry of unconfirmed) {
      this.#writing -= entry.lines.length;
      this.#queue = entry.lines.concat(this.#queue);
    }
    if (this.#queue.length > 0 && !this.#closed) {
      const lines = this.#queue;
      this.#queue = [];
      void this.#writeHere(lines);
    }
    for (const entry of unconfirmed) for (const waiter of entry.waiters) waiter();
  }

  #requeue(lines: string[], error: unknown): void {
    this.#queue = lines.concat(this.#queue);
    // Records queued meanwhile were admitted under the bound, so this only trims if the bound was
    // reached some other way; the newest go first, as they would have been refused had they come later.
    const excess = this.held - this.#maxQueued;
    if (excess > 0) {
      this.#queue.splice(this.#queue.length - excess, excess);
      this.#drop(excess);
    }
    this.#log?.error({ err: error }, 'audit write failed; will retry');
    if (!this.#closed && this.#timer === null) this.#flushAfter(FLUSH_INTERVAL_MS * 10);
  }

  /** Counts, reports and remembers `count` dropped records. */
  #drop(count: number): void {
    const now = this.#clock.now();
    if (this.#unreported === null) {
      this.#unreported = { count: 0, firstAt: now, lastAt: now };
      this.#log?.error({ held: this.held, limit: this.#maxQueued }, 'audit writer behind: new audit records are being dropped and counted');
    }
    this.#unreported.count += count;
    this.#unreported.lastAt = now;
    this.#droppedTotal += count;
    for (const listener of this.#dropListeners) listener(count);
  }

  /**
   * A batch was committed, so the writer is moving again: the drops not yet reported become one
   * `audit_dropped` event (admitted even at the bound, so the loss itself is never lost).
   */
  #committed(): void {
    const episode = this.#unreported;
    if (episode === null) return;
    this.#unreported = null;
    this.#push(
      canonicalEncoding(
        eventEntry(
          {
            event_type: 'audit_dropped',
            action: 'audit.drop',
            status: 'failure',
            reason: 'writer_behind',
            details: { dropped: episode.count, first_dropped_at: new Date(episode.firstAt).toISOString(), last_dropped_at: new Date(episode.lastAt).toISOString(), limit: this.#maxQueued },
          },
          this.#clock.now(),
        ),
      ),
    );
    this.#log?.warn({ dropped: episode.count }, 'audit writer caught up; the dropped records are recorded as an audit_dropped event');
  }

  /** Prunes records older than the retention period now and then every few hours. */
  startPruning(): void {
    void this.prune();
    this.#pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.#pruneTimer.unref();
  }

  /** Deletes records older than the retention period (in batches); records the pruning itself. Never rejects. */
  async prune(): Promise<number> {
    const now = this.#clock.now();
    const before = now - this.#retentionDays * 24 * 60 * 60 * 1000;
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.#store.pruneOlderThan(before, PRUNE_BATCH, now);
        total += deleted;
        if (deleted < PRUNE_BATCH) break;
      }
      // The stored strings only the pruned records used (paths, usernames, …) go too.
      if (total > 0) await this.#store.pruneUnusedStrings();
    } catch (error) {
      this.#log?.error({ err: error }, 'audit pruning failed');
    }
    if (total > 0) {
      this.recordEvent({ event_type: 'audit_pruned', action: 'audit.prune', status: 'success', details: { deleted: total, before: new Date(before).toISOString() } });
    }
    return total;
  }

  /** Writes everything queued, then stops the timers and the writer thread. */
  async close(): Promise<void> {
    if (this.#pruneTimer !== null) clearInterval(this.#pruneTimer);
    await this.flush();
    // A flush that committed nothing (everything was dropped, or failed) leaves drops unreported.
    if (this.#unreported !== null) {
      this.#committed();
      await this.flush();
    }
    this.#closed = true;
    // Anything that failed in the thread is written here, before the database closes.
    const rest = this.#queue;
    this.#queue = [];
    if (rest.length > 0) await this.#writeHere(rest);
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  /** Records bans, lockouts and unbans (R11). */
  onBruteForceEvent(event: BruteForceEvent): void {
    const names = {
      ban: { ip: 'ip_banned', key: 'key_banned', account: 'account_locked' },
      unban: { ip: 'ip_unbanned', key: 'key_unbanned', account: 'account_unlocked' },
    } as const;
    const eventType = names[event.action][event.scope];
    const details: Record<string, unknown> = { cause: event.cause };
    if (event.bannedUntil !== null) details['banned_until'] = new Date(event.bannedUntil).toISOString();
    if (event.keyId !== null) details['key_id'] = event.keyId;
    this.recordEvent({
      event_type: eventType,
      action: `security.${event.action}`,
      category: 'security',
      status: event.action === 'ban' ? eventType : 'success',
      user_id: event.userId,
      target: event.scope === 'account' ? event.userId : event.scope === 'key' ? keySubject(event.ip ?? '', event.keyId ?? '') : event.ip,
      reason: event.cause,
      client_ip: event.ip,
      details,
    });
  }
}
