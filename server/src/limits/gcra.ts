/**
 * The Generic Cell Rate Algorithm for "L per minute" limits, pure. A rate's whole state is one
 * number, the theoretical arrival time (TAT): when the limit would be back to full. A request of
 * cost `c` conforms when `max(TAT, now) + c·T − now ≤ W`, with `T = W / L` the emission interval and
 * `W` the period: an idle limit allows a burst of `L`, then one unit every `T` (OpenAI's
 * continuously replenished limits, and the meaning of its `x-ratelimit-reset-*` headers: the time
 * until the limit is full again, `TAT − now`).
 */

/** "`limit` units per `periodMs`." */
export interface Rate {
  limit: number;
  periodMs: number;
}

/** Guards floating-point sums (`0.1 + 0.2`) from refusing a unit that exactly fits. */
const EPSILON = 1e-6;

/** `T`: the time one unit occupies. */
export const emissionInterval = (rate: Rate): number => rate.periodMs / rate.limit;

/** `max(TAT, now)`: a TAT in the past means a full limit. */
export const effectiveTat = (tat: number | null, now: number): number => Math.max(tat ?? now, now);

/** Whole units that conform at `now` (0 … `limit`). */
export function availableUnits(tat: number | null, now: number, rate: Rate): number {
  const headroom = rate.periodMs - (effectiveTat(tat, now) - now);
  return Math.max(0, Math.min(rate.limit, Math.floor(headroom / emissionInterval(rate) + EPSILON)));
}

/** Milliseconds until the limit is full again (0 when it is). */
export const resetMs = (tat: number | null, now: number): number => Math.max(0, Math.ceil(effectiveTat(tat, now) - now));

/**
 * Milliseconds until `units` conform (0 when they do now; `Infinity` when they never can: more
 * than the limit).
 */
export function waitFor(tat: number | null, now: number, units: number, rate: Rate): number {
  if (units > rate.limit) return Number.POSITIVE_INFINITY;
  const wait = effectiveTat(tat, now) + units * emissionInterval(rate) - rate.periodMs - now;
  return wait <= EPSILON ? 0 : Math.ceil(wait);
}

/** The TAT after `units` were taken (unconditionally: a charge may overdraw into the future). */
export const advance = (tat: number | null, now: number, units: number, rate: Rate): number => effectiveTat(tat, now) + units * emissionInterval(rate);

/** The TAT after `units` were given back (never before `now`: a refund cannot bank capacity). */
export const giveBack = (tat: number | null, now: number, units: number, rate: Rate): number =>
  Math.max(now, effectiveTat(tat, now) - units * emissionInterval(rate));

/** The answer of {@link lease}. */
export interface LeaseGrant {
  /** Units granted: 0 (refused) or between `need` and `want`. */
  granted: number;
  /** The TAT after the grant. */
  tat: number;
  /** When refused, milliseconds until `need` units conform (`Infinity`: never). */
  retryAfterMs: number;
}

/**
 * Takes between `need` and `want` units at once when at least `need` conform (a lease of a block of
 * capacity for one process), else nothing.
 */
export function lease(tat: number | null, now: number, need: number, want: number, rate: Rate): LeaseGrant {
  const available = availableUnits(tat, now, rate);
  if (available < need || need > rate.limit) return { granted: 0, tat: effectiveTat(tat, now), retryAfterMs: waitFor(tat, now, need, rate) };
  const granted = Math.max(need, Math.min(want, available));
  return { granted, tat: advance(tat, now, granted, rate), retryAfterMs: 0 };
}
