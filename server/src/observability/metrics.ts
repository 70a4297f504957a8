/**
 * The server's Prometheus metrics (prom-client), one registry per server: requests by method,
 * route template and status; authentication and authorisation failures by reason; bans. Served by
 * `GET /metrics` (`monitor:view`). Counts are per process.
 *
 * The brute-force protection reports its bans through {@link ServerMetrics.recordBan},
 * {@link ServerMetrics.recordUnban} and {@link ServerMetrics.setActiveBans}.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** What is banned. */
export type BanKind = 'ip' | 'key';

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #authFailures: Counter<'reason'>;
  readonly #bans: Counter<'kind'>;
  readonly #unbans: Counter<'kind'>;
  readonly #activeBans: Gauge<'kind'>;

  /** @param options.processMetrics - also collect the process's own metrics (CPU, memory, event loop). @default true */
  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#requests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
    this.#authFailures = new Counter({
      name: 'svc_auth_failures_total',
      help: 'Requests refused for authentication (401) or authorisation (403), by error code.',
      labelNames: ['reason'],
      registers,
    });
    this.#bans = new Counter({ name: 'svc_bans_total', help: 'Bans imposed by the brute-force protection, by kind (ip or key).', labelNames: ['kind'], registers });
    this.#unbans = new Counter({ name: 'svc_unbans_total', help: 'Bans lifted by an administrator, by kind.', labelNames: ['kind'], registers });
    this.#activeBans = new Gauge({ name: 'svc_active_bans', help: 'Bans in force, by kind, as last reported.', labelNames: ['kind'], registers });
    for (const kind of ['ip', 'key'] as const) {
      this.#bans.inc({ kind }, 0);
      this.#unbans.inc({ kind }, 0);
      this.#activeBans.set({ kind }, 0);
    }
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

  /** Called by the brute-force protection each time it bans an IP or a key. */
  recordBan(kind: BanKind): void {
    this.#bans.inc({ kind });
  }

  /** Called when an administrator lifts `count` bans of a kind. */
  recordUnban(kind: BanKind, count = 1): void {
    this.#unbans.inc({ kind }, count);
  }

  /** Sets how many bans of a kind are in force now. */
  setActiveBans(kind: BanKind, count: number): void {
    this.#activeBans.set({ kind }, count);
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
