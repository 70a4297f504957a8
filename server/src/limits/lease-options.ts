/**
 * How a process shares limits with other processes: the size of the blocks of capacity it leases
 * from the shared counter, and how long it may keep a rate lease. See `docs/limits.md` for the
 * tolerance these give.
 */

/** Options of {@link RateLeases} and {@link BudgetLeases}. */
export interface LeaseOptions {
  /**
   * A rate lease's block, as a fraction of the limit (at least what the request needs). 0: take
   * exactly what each request needs, one counter update per request (exact; the in-process store).
   * @default 0.05
   */
  rateLeaseFraction?: number;
  /**
   * How long leased rate units stay usable (ms); unused ones then lapse. Bounds how far a process
   * may use capacity after it was reserved, hence the tolerance across processes. @default 1000
   */
  rateLeaseTtlMs?: number;
  /** A budget lease's block, as a fraction of the budget. @default 0.001 */
  budgetLeaseFraction?: number;
}

/** {@link LeaseOptions} with every default applied. */
export type ResolvedLeaseOptions = Required<LeaseOptions>;

/** `options` with defaults; throws on a fraction outside [0, 1] or a negative lifetime. */
export function resolveLeaseOptions(options: LeaseOptions = {}): ResolvedLeaseOptions {
  const resolved = { rateLeaseFraction: 0.05, rateLeaseTtlMs: 1000, budgetLeaseFraction: 0.001, ...options };
  for (const name of ['rateLeaseFraction', 'budgetLeaseFraction'] as const) {
    if (!(resolved[name] >= 0 && resolved[name] <= 1)) throw new RangeError(`${name} must be between 0 and 1`);
  }
  if (!(resolved.rateLeaseTtlMs >= 0)) throw new RangeError('rateLeaseTtlMs must not be negative');
  return resolved;
}

/** Exact, one counter update per request: for one process on the in-process store. */
export const exactLeases: ResolvedLeaseOptions = Object.freeze({ rateLeaseFraction: 0, rateLeaseTtlMs: 0, budgetLeaseFraction: 0 });
