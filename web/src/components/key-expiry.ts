/**
 * A key's expiry as the create dialog offers it: never, a preset number of days from now, or a date
 * picked in the browser's native date field (`<input type="date">`), meaning "until the end of that
 * day, local time". Pure functions of the time they are given.
 */

/** `YYYY-MM-DD` of `day` in the browser's time zone (the value format of a date field). */
export function localDate(day: Date): string {
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

/** The last millisecond of the local day `YYYY-MM-DD`, or null when the text is no date. */
function endOfLocalDay(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const end = new Date(year, month - 1, day, 23, 59, 59, 999);
  // new Date rolls 2027-02-30 over into March: such a day does not exist.
  return end.getFullYear() === year && end.getMonth() === month - 1 && end.getDate() === day ? end : null;
}

/** Why a picked date cannot be the expiry, or null. */
export function expiryDateProblem(value: string, now: Date): string | null {
  if (value === '') return 'Pick the day the key stops working';
  const end = endOfLocalDay(value);
  if (end === null) return 'Not a date';
  return end.getTime() <= now.getTime() ? 'Pick a day in the future' : null;
}

/**
 * The `expires_at` to send for the dialog's choice: null for never, `now` plus the preset's days, or
 * the end of the picked day.
 *
 * @example
 * expiryOf('30', '', new Date('2026-11-23T10:00:00Z')); // '2026-12-23T10:00:00.000Z'
 */
export function expiryOf(choice: string, date: string, now: Date): string | null {
  if (choice === 'never') return null;
  if (choice === 'date') return endOfLocalDay(date)?.toISOString() ?? null;
  return new Date(now.getTime() + Number(choice) * 86_400_000).toISOString();
}
