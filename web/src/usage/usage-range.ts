/**
 * The usage page's time range: presets the server resolves itself (`now-24h`, `now-7d`, `now-30d`)
 * or whole UTC days picked as dates, checked against the server's limits first (an hourly report
 * spans at most 31 days, a daily one 366), so a range it would refuse is explained, not sent.
 */
import type { UsageQuery } from '@svc/sdk';

/** The range choices, in the order the page shows them. */
export const rangePresets = [
  { value: '24h', label: '24 h' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: 'custom', label: 'Dates' },
] as const;

export type RangePreset = (typeof rangePresets)[number]['value'];
export type UsageIntervalChoice = NonNullable<UsageQuery['interval']>;

/** The interval that suits a preset (hours for a day, days for longer). */
export function intervalFor(preset: RangePreset): UsageIntervalChoice {
  return preset === '24h' ? 'hour' : 'day';
}

const DAY_MS = 86_400_000;
const MAX_DAYS: Record<UsageIntervalChoice, number> = { hour: 31, day: 366 };

/** The range of a report, or why it cannot be asked for. */
export type RangeChoice = { start: string; end?: string } | { problem: string };

/**
 * The `start`/`end` of a report: a preset, or the UTC days `from` to `to` (both included, as
 * `YYYY-MM-DD`; an empty `to` means up to now).
 */
export function rangeOf(preset: RangePreset, from: string, to: string, interval: UsageIntervalChoice): RangeChoice {
  if (preset !== 'custom') return { start: `now-${preset}` };
  const start = Date.parse(`${from}T00:00:00Z`);
  if (from === '' || Number.isNaN(start)) return { problem: 'Choose the first day of the range.' };
  const end = to === '' ? null : Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  if (end !== null && Number.isNaN(end)) return { problem: 'The last day is not a date.' };
  if (end !== null && end <= start) return { problem: 'The range ends before it starts: choose a last day on or after the first.' };
  // Without a last day the range ends now; its length is checked by the server against its own clock.
  if (end !== null && end - start > MAX_DAYS[interval] * DAY_MS) {
    return {
      problem:
        interval === 'hour'
          ? 'An hourly report spans at most 31 days: choose fewer days, or Daily.'
          : 'A daily report spans at most 366 days: choose fewer days.',
    };
  }
  return end === null ? { start: new Date(start).toISOString() } : { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}
