/**
 * The server's Prometheus metrics (prom-client), one registry per server: requests by method,
 * route template and status; authentication and authorisation failures by reason; bans. Served by
 * `GET /metrics` (`monitor:view`). Counts are per process.
 *
 * The brute-force protection reports bans and unbans through {@link ServerMetrics.recordBan} and
 * {@link ServerMetrics.recordUnban} (per process); the bans in force are read from the shared
 * database at each scrape, so every process reports the same number.
 *
 * The audit trail reports the records it had to drop because its writer fell behind through
 * {@link ServerMetrics.recordAuditDropped} (`svc_audit_dropped_total`, per process).
 *
 * On PostgreSQL, the change-feed listener (the LISTEN connection of cache invalidation) is read at
 * each scrape: `svc_change_listener_up`, `svc_change_listener_reconnects_total` and
 * `svc_change_listener_last_notification_age_seconds` (per process; not registered on SQLite).
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ChangeListenerReport } from './change-listener-report.js';

/** What is banned (an account is locked). */
export type BanKind = 'ip' | 'key' | 'account';
const banKinds: readonly BanKind[] = ['ip', 'key', 'account'];

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #authFailures: Counter<'reason'>;
  readonly #bans: Counter<'kind'>;
  readonly #unbans: Counter<'kind'>;
  readonly #activeBans: Gauge<'kind'>;
  readonly #auditDropped: Counter;

  /**
   * @param options.processMetrics - also collect the process's own metrics (CPU, memory, event loop). @default true
   * @param options.countActiveBans - how many bans of a kind are in force now, read at each scrape.
   * @param options.changeListener - the change-feed listener's state, read at each scrape (PostgreSQL only).
   */
  constructor(
    options: { processMetrics?: boolean; countActiveBans?: (kind: BanKind) => number | Promise<number>; changeListener?: () => ChangeListenerReport | null } = {},
  ) {
    const registers = [this.registry];
    this.#requests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
    this.#authFailures = new Counter({
      name: 'svc_auth_failures_total',
      help: 'Requests refused for authentication (401) or authorisation (403), by error code.',
      labelNames: ['reason'],
      registers,
    });
    this.#bans = new Counter({ name: 'svc_bans_total', help: 'Bans and account lockouts imposed by the brute-force protection in this process, by kind (ip, key or account).', labelNames: ['kind'], registers });
    this.#unbans = new Counter({ name: 'svc_unbans_total', help: 'Bans and lockouts lifted by an administrator in this process, by kind.', labelNames: ['kind'], registers });
    this.#auditDropped = new Counter({
      name: 'svc_audit_dropped_total',
      help: 'Audit records this process dropped because the audit writer fell too far behind (each episode is also recorded as an audit_dropped event).',
      registers,
    });
    const countActiveBans = options.countActiveBans;
    this.#activeBans = new Gauge({
      name: 'svc_active_bans',
      help: 'Bans and account lockouts in force now (shared by every process), by kind.',
      labelNames: ['kind'],
      registers,
      async collect() {
        if (countActiveBans === undefined) return;
        for (const kind of banKinds) this.set({ kind }, await countActiveBans(kind));
      },
    });
    for (const kind of banKinds) {
      this.#bans.inc({ kind }, 0);
      this.#unbans.inc({ kind }, 0);
      this.#activeBans.set({ kind }, 0);
    }
    if (options.changeListener !== undefined) registerChangeListenerMetrics(this.registry, options.changeListener);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  /** Counts one answered request; `route` is the route template (`/v1/models/:model_uid`) or `unmatched`. */
  recordRequest(method: string, route: string, status: number): void {
    this.#requests.inc({ method, route, status: String(status) });
  }

  /** Counts one refused request; `reason` is its error code (`invalid_api_key`, `permission_denied`, …). */
  recordAuthFailure(reason: string): void {
    this.#authFailures.inc({ reason });
  }

  /** Called by the brute-force protection each time it bans an IP or a key, or locks an account. */
  recordBan(kind: BanKind): void {
    this.#bans.inc({ kind });
  }

  /** Called when an administrator lifts `count` bans (or unlocks accounts) of a kind. */
  recordUnban(kind: BanKind, count = 1): void {
    this.#unbans.inc({ kind }, count);
  }

  /** Called by the audit trail when it drops `count` records because its writer fell behind. */
  recordAuditDropped(count: number): void {
    this.#auditDropped.inc(count);
  }

  /** The Content-Type of {@link ServerMetrics.render}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Everything, in the Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}

/** The three metrics of the change-feed listener, each read from `report` at scrape time. */
function registerChangeListenerMetrics(registry: Registry, report: () => ChangeListenerReport | null): void {
  const registers = [registry];
  new Gauge({
    name: 'svc_change_listener_up',
    help: "1 while this process's cache-invalidation listener (PostgreSQL LISTEN connection) is connected, else 0. Requests stay correct without it (the epoch check decides).",
    registers,
    collect() {
      this.set(report()?.listening === true ? 1 : 0);
    },
  });
  new Counter({
    name: 'svc_change_listener_reconnects_total',
    help: 'Times the cache-invalidation listener of this process connected again after losing its connection.',
    registers,
    collect() {
      this.reset();
      this.inc(report()?.reconnects ?? 0);
    },
  });
  new Gauge({
    name: 'svc_change_listener_last_notification_age_seconds',
    help: 'Seconds since the cache-invalidation listener of this process last heard a change notification (NaN before the first).',
    registers,
    collect() {
      this.set(report()?.lastNotificationAgeSeconds ?? Number.NaN);
    },
  });
}
