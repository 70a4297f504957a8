/**
 * Usage limits and metering (issue 17), pure: the GCRA rate limits and token budgets shared across
 * processes by leases, the concurrency gate, the OpenAI-style headers, the admission estimate of a
 * call's tokens, and the hourly usage meter. I/O only through the storage port's `UsageStore`.
 */
export { answerUsage, reportedUsage, StreamUsage, type CallUsage } from './call-usage.js';
export { ModelCall, ModelCallLimits, type CallOutcome, type CallParty, type CallRequest, type CallStart } from './model-call-limits.js';
export { UsageMetrics } from './usage-metrics.js';
export { UsageRecorder, type UsageRecorderOptions } from './usage-recorder.js';
export { maximumRangeMs, defaultRangeMs, usageRange, type UsageRange, type UsageRangeProblem } from './usage-range.js';
export { periodBounds, type BudgetPeriod, type PeriodBounds } from './budget-period.js';
export { BudgetLeases, type BudgetCheck } from './budget-leases.js';
export { ConcurrencyGate, type ConcurrencyGateOptions } from './concurrency-gate.js';
export { exactLeases, resolveLeaseOptions, type LeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
export { MemoryLimitCounterStore } from './memory-counter-store.js';
export { formatDuration, isTighter, rateLimitHeaders, retryAfterHeaders, type LimitState, type RateLimitState } from './rate-limit-headers.js';
export { RateLeases, type RateCheck, type RateStatus } from './rate-leases.js';
export { admissionEstimate, completionAllowance, estimatePromptTokens, textTokens, type AdmissionEstimateOptions, type ModelOperation, type TokenEstimate } from './stream-admission.js';
export { UsageLimiter, type Admission, type AdmissionRequest, type AdmissionTicket, type LimitScope } from './usage-limiter.js';
export {
  isUnlimited,
  limitsAboveOwner,
  limitsFromWire,
  limitsToWire,
  loadLimits,
  noLimits,
  storedLimits,
  type ModelLimit,
  type TokenBudget,
  type UsageLimits,
  type UsageLimitsWire,
} from './usage-limits.js';
export { bucketStart, groupUsage, hourStart, mergeUsageTotals, totalOf, UsageMeter, type MeteredCall, type UsageGrouping, type UsageInterval, type UsageReportRow } from './usage-meter.js';
