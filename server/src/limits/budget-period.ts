/**
 * Token budgets' periods, pure: a budget counts the tokens of one UTC day or one UTC calendar month
 * and starts again from zero at the next boundary (midnight UTC; the first of the month, 00:00 UTC).
 */

/** The period a budget counts over. */
export type BudgetPeriod = 'day' | 'month';

/** The period holding `at`: `[start, end)`, epoch ms. */
export interface PeriodBounds {
  start: number;
  end: number;
}

/** The bounds of the UTC day or month holding `at`. */
export function periodBounds(at: number, period: BudgetPeriod): PeriodBounds {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'month') return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
  const day = date.getUTCDate();
  return { start: Date.UTC(year, month, day), end: Date.UTC(year, month, day + 1) };
}
