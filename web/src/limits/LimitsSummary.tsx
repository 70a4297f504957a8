/**
 * A key's or user's limits and current use, for a table cell: the limits in words (or what applies
 * without them), what was used today and this month, and how much of a token budget is spent.
 */
import { Stack, Text } from '@mantine/core';
import type { UsageLimits } from '@svc/sdk';
import { budgetUse, noUse, type CurrentUse } from './current-use.js';
import { describeLimits } from './limits-draft.js';

export interface LimitsSummaryProps {
  limits: UsageLimits | null | undefined;
  /** What applies without limits of its own ("None: the owner's apply"). */
  none: string;
  /** The current use, or undefined while it loads. */
  use: CurrentUse | undefined;
  /** Why the current use cannot be shown (the caller may not see it), or null. */
  useHidden: string | null;
}

const count = (value: number) => value.toLocaleString();
const requests = (value: number) => `${count(value)} ${value === 1 ? 'request' : 'requests'}`;

export function LimitsSummary({ limits, none, use, useHidden }: LimitsSummaryProps) {
  const parts = describeLimits(limits);
  const budget = limits?.token_budget ?? null;
  const shownUse = use ?? noUse;
  return (
    <Stack gap={2}>
      <Text size="sm">{parts.length === 0 ? none : parts.join(' · ')}</Text>
      {useHidden !== null ? (
        <Text size="xs" c="dimmed">
          {useHidden}
        </Text>
      ) : use === undefined ? null : (
        <Text size="xs" c="dimmed">
          {`Today ${count(shownUse.todayTokens)} tokens, ${requests(shownUse.todayCalls)} · this month ${count(shownUse.monthTokens)} tokens, ${requests(shownUse.monthCalls)}`}
        </Text>
      )}
      {budget !== null && useHidden === null && use !== undefined && (
        <Text size="xs" {...(budgetUse(shownUse, budget.period) >= budget.tokens ? { c: 'red.9', fw: 600 } : {})}>
          {`Budget: ${count(budgetUse(shownUse, budget.period))} of ${count(budget.tokens)} tokens ${budget.period === 'day' ? 'today' : 'this month'} (${Math.min(100, Math.floor((budgetUse(shownUse, budget.period) / budget.tokens) * 100))} %)`}
        </Text>
      )}
    </Stack>
  );
}
