/**
 * The time range of a usage report, pure: defaults, rounding out to whole hours, and the longest
 * range each interval may span (an hourly report 31 days, a daily one 366).
 */
import { DAY_MS, HOUR_MS, type UsageInterval } from './usage-meter.js';

/** The longest range of each interval, in ms. */
export const maximumRangeMs: Readonly<Record<UsageInterval, number>> = { hour: 31 * DAY_MS, day: 366 * DAY_MS };
/** The range when `start` is not given: the last 24 hours (hourly) or 7 days (daily) before `end`. */
export const defaultRangeMs: Readonly<Record<UsageInterval, number>> = { hour: DAY_MS, day: 7 * DAY_MS };

/** A report's range `[start, end)`, whole hours. */
export interface UsageRange {
  start: number;
  end: number;
}

/** Why a range was refused, naming the query parameter at fault. */
export interface UsageRangeProblem {
  param: 'start' | 'end';
  message: string;
}

/**
 * The range of `start` and `end` (epoch ms, either absent) for `interval` at `now`: `start` rounded
 * down and `end` up to whole hours; a problem when `start` is not before `end` or the range is too long.
 */
export function usageRange(start: number | undefined, end: number | undefined, interval: UsageInterval, now: number): UsageRange | UsageRangeProblem {
  const endAt = end ?? now;
  const startAt = start ?? endAt - defaultRangeMs[interval];
  if (!(startAt < endAt)) return { param: 'start', message: 'start must be before end' };
  const range = { start: Math.floor(startAt / HOUR_MS) * HOUR_MS, end: Math.ceil(endAt / HOUR_MS) * HOUR_MS };
  if (range.end - range.start > maximumRangeMs[interval]) {
    return { param: 'start', message: `an ${interval === 'hour' ? 'hourly' : 'daily'} report spans at most ${maximumRangeMs[interval] / DAY_MS} days` };
  }
  return range;
}
