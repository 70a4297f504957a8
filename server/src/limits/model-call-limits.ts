/**
 * What the model routes do around one call (chat, completions, embeddings), in one place: estimate
 * its tokens, admit it against the key's and the user's limits (or refuse it with the 429's code,
 * message and headers), and when it ends settle the limits with the real usage and meter it.
 */
import type { Clock } from '../runtime/clock.js';
import type { CallUsage } from './call-usage.js';
import { admissionEstimate, type AdmissionEstimateOptions, type ModelOperation } from './stream-admission.js';
import type { AdmissionTicket, LimitScope, UsageLimiter } from './usage-limiter.js';
import type { UsageLimits } from './usage-limits.js';
import type { UsageMetrics } from './usage-metrics.js';
import type { UsageRecorder } from './usage-recorder.js';

/** Who makes a call, with the limits in force for each. */
export interface CallParty {
  keyId: string | null;
  keyLimits: UsageLimits;
  /** Null when authentication is disabled. */
  userId: string | null;
  userLimits: UsageLimits;
}

/** One call to begin. */
export interface CallRequest {
  operation: ModelOperation;
  model: string;
  /** The request body (for the token estimate). */
  body: unknown;
  party: CallParty;
}

/** The answer of {@link ModelCallLimits.begin}. */
export type CallStart =
  | { admitted: true; call: ModelCall; headers: Record<string, string> }
  | { admitted: false; code: 'rate_limit_exceeded' | 'budget_exceeded'; message: string; retryAfterMs: number; headers: Record<string, string> };

/** How a call ended. */
export interface CallOutcome {
  usage: CallUsage;
  /** True for an error answer or a stream cut off. */
  failed: boolean;
}

/** An admitted call, until {@link ModelCall.end}. */
export class ModelCall {
  /** The prompt's estimated tokens (what {@link CallUsage} falls back to when none is reported). */
  readonly promptEstimate: number;
  readonly #end: (outcome: CallOutcome) => Promise<Record<string, string>>;
  #ended: Promise<Record<string, string>> | null = null;

  constructor(promptEstimate: number, end: (outcome: CallOutcome) => Promise<Record<string, string>>) {
    this.promptEstimate = promptEstimate;
    this.#end = end;
  }

  /** Settles the limits and meters the call; answers the rate-limit headers after it. Only the first call counts. */
  end(outcome: CallOutcome): Promise<Record<string, string>> {
    this.#ended ??= this.#end(outcome);
    return this.#ended;
  }
}

/** An admitted call's start; its headers are the admission's, computed when first read (a stream's answer, a failed call): a JSON answer carries the settlement's. */
class StartedCall {
  readonly admitted = true;
  readonly call: ModelCall;
  readonly #admission: { headers: Record<string, string> };

  constructor(call: ModelCall, admission: { headers: Record<string, string> }) {
    this.call = call;
    this.#admission = admission;
  }

  get headers(): Record<string, string> {
    return this.#admission.headers;
  }
}

/** Limits and metering of model calls. */
export class ModelCallLimits {
  readonly #limiter: UsageLimiter;
  readonly #recorder: UsageRecorder;
  readonly #clock: Clock;
  readonly #estimate: AdmissionEstimateOptions;
  readonly #metrics: UsageMetrics | null;

  /**
   * @param options.estimate - how a call's tokens are estimated before it runs.
   * @param options.metrics - the Prometheus counters to feed (none by default).
   */
  constructor(limiter: UsageLimiter, recorder: UsageRecorder, clock: Clock, options: { estimate?: AdmissionEstimateOptions; metrics?: UsageMetrics } = {}) {
    this.#limiter = limiter;
    this.#recorder = recorder;
    this.#clock = clock;
    this.#estimate = options.estimate ?? {};
    this.#metrics = options.metrics ?? null;
  }

  /** Admits the call or refuses it. A refused call is metered as a failed call without tokens. */
  async begin(request: CallRequest): Promise<CallStart> {
    const startedAt = this.#clock.now();
    const estimate = admissionEstimate(request.body, request.operation, this.#estimate);
    const scopes: LimitScope[] = [];
    if (request.party.keyId !== null) scopes.push({ kind: 'key', id: request.party.keyId, limits: request.party.keyLimits });
    if (request.party.userId !== null) scopes.push({ kind: 'user', id: request.party.userId, limits: request.party.userLimits });
    const admission = await this.#limiter.admit({ model: request.model, scopes, estimatedTokens: estimate.totalTokens });
    const meter = (outcome: CallOutcome) => {
      this.#metrics?.recordTokens(request.model, request.party.keyId, outcome.usage.promptTokens, outcome.usage.completionTokens);
      this.#recorder.record({
        at: this.#clock.now(),
        keyId: request.party.keyId,
        userId: request.party.userId,
        model: request.model,
        promptTokens: outcome.usage.promptTokens,
        completionTokens: outcome.usage.completionTokens,
        estimated: outcome.usage.estimated,
        failed: outcome.failed,
        latencyMs: this.#clock.now() - startedAt,
      });
    };
    if (!admission.admitted) {
      this.#metrics?.recordLimited(admission.code);
      meter({ usage: { promptTokens: 0, completionTokens: 0, estimated: false }, failed: true });
      return admission;
    }
    const ticket: AdmissionTicket = admission.ticket;
    const call = new ModelCall(estimate.promptTokens, async (outcome) => {
      meter(outcome);
      return this.#limiter.settle(ticket, outcome.usage.promptTokens + outcome.usage.completionTokens);
    });
    return new StartedCall(call, admission);
  }
}
