/**
 * Prometheus counters of metered usage, per process: tokens by model and by key id (prompt and
 * completion apart), and calls refused by a usage limit by code. Registered in the server's registry
 * (`ServerMetrics.registry`), so `GET /metrics` serves them with the rest.
 */
import { Counter, type Registry } from 'prom-client';

/** The usage counters of one server. */
export class UsageMetrics {
  readonly #modelTokens: Counter<'model' | 'kind'>;
  readonly #keyTokens: Counter<'key_id' | 'kind'>;
  readonly #limited: Counter<'code'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#modelTokens = new Counter({ name: 'svc_model_tokens_total', help: 'Tokens of model calls in this process, by model and kind (prompt or completion).', labelNames: ['model', 'kind'], registers });
    this.#keyTokens = new Counter({
      name: 'svc_key_tokens_total',
      help: 'Tokens of model calls in this process, by API key id (none: sessions) and kind (prompt or completion).',
      labelNames: ['key_id', 'kind'],
      registers,
    });
    this.#limited = new Counter({ name: 'svc_usage_limited_total', help: 'Model calls refused by a usage limit in this process, by error code.', labelNames: ['code'], registers });
    for (const code of ['rate_limit_exceeded', 'budget_exceeded']) this.#limited.inc({ code }, 0);
  }

  /** Counts one call's tokens. */
  recordTokens(model: string, keyId: string | null, promptTokens: number, completionTokens: number): void {
    const key = keyId ?? 'none';
    this.#modelTokens.inc({ model, kind: 'prompt' }, promptTokens);
    this.#modelTokens.inc({ model, kind: 'completion' }, completionTokens);
    this.#keyTokens.inc({ key_id: key, kind: 'prompt' }, promptTokens);
    this.#keyTokens.inc({ key_id: key, kind: 'completion' }, completionTokens);
  }

  /** Counts one refused call. */
  recordLimited(code: 'rate_limit_exceeded' | 'budget_exceeded'): void {
    this.#limited.inc({ code });
  }
}
