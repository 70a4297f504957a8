/**
 * Usage (everyone: one's own calls; everyone's with `usage:read_all`): metered model calls over a
 * range (24 h, 7 or 30 days, or picked UTC days), per hour or per day, grouped by model, key or
 * user. The totals of the range, a bar chart of tokens or requests over time (its numbers also in a
 * table), a table per group (requests, errors, prompt, completion and total tokens, mean latency),
 * and the server's CSV export of the same query. An empty range says so and what fills it; a
 * refused report says why and what to try.
 */
import { Alert, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { APIError, PermissionDeniedError, type UsageQuery, type UsageReport } from '@svc/sdk';
import { useMemo, useState } from 'react';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { holds } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { DataTable, type Column } from '../components/DataTable.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { PageHeader } from '../components/PageHeader.js';
import { CsvExportButton } from '../usage/CsvExportButton.js';
import { groupHeader, groupLabel, groupNoun, useGroupNames, type UsageGroupBy } from '../usage/group-names.js';
import { UsageChart } from '../usage/UsageChart.js';
import { intervalFor, rangeOf, rangePresets, type RangePreset, type UsageIntervalChoice } from '../usage/usage-range.js';
import { bucketsOf, formatBucket, formatCount, sumRows, totalsByGroup, type UsageBucket, type UsageGroupTotal, type UsageMetric } from '../usage/usage-series.js';

const groupChoices = [
  { value: 'model', label: 'Model' },
  { value: 'key', label: 'API key' },
  { value: 'user', label: 'User' },
];
const intervalChoices = [
  { value: 'hour', label: 'Hourly' },
  { value: 'day', label: 'Daily' },
];
const metricChoices = [
  { value: 'tokens', label: 'Tokens' },
  { value: 'requests', label: 'Requests' },
];

/** What to do about a refused report. */
function nextStep(error: unknown): string {
  if (error instanceof PermissionDeniedError) return 'Turn on "Only my usage", or ask an administrator for the usage:read_all permission.';
  if (error instanceof APIError && error.status === 400) return 'Choose a shorter range, or Daily instead of Hourly.';
  return 'Try again with Reload; if it keeps failing, check that the server is running.';
}

/** A labelled segmented control (its label is text tied to it, for screen readers). */
function Choice({ id, label, data, value, onChange }: { id: string; label: string; data: { value: string; label: string }[]; value: string; onChange(value: string): void }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={id}>
        {label}
      </Text>
      <SegmentedControl aria-labelledby={id} data={data} value={value} onChange={onChange} />
    </Stack>
  );
}

export function UsagePage() {
  const me = useMe();
  const readsAll = holds(me.permissions, 'usage:read_all');
  const [preset, setPreset] = useState<RangePreset>('7d');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [interval, setReportInterval] = useState<UsageIntervalChoice>('day');
  const [groupBy, setGroupBy] = useState<UsageGroupBy>('model');
  const [metric, setMetric] = useState<UsageMetric>('tokens');
  const [onlyMine, setOnlyMine] = useState(false);
  const [showPeriods, setShowPeriods] = useState(false);
  const names = useGroupNames(me);

  const range = rangeOf(preset, from, to, interval);
  const query = useMemo<UsageQuery | null>(() => {
    if ('problem' in range) return null;
    return { ...range, interval, group_by: groupBy, ...(readsAll && onlyMine ? { user_id: me.id } : {}) };
  }, [JSON.stringify(range), interval, groupBy, readsAll, onlyMine, me.id]);
  const queryKey = JSON.stringify(query);
  const report = useLoader(() => (query === null ? Promise.reject(new Error('problem' in range ? range.problem : 'Choose a range.')) : client.usage.report(query)), [queryKey]);
  // After a failed load, the old report is not shown as if it answered the new query.
  const shown = report.error === null ? report.data : undefined;
  const buckets = useMemo(() => (shown === undefined ? [] : bucketsOf(shown)), [shown]);
  const groups = useMemo(() => (shown === undefined ? [] : totalsByGroup(shown)), [shown]);
  const totals = useMemo(() => sumRows(shown?.data ?? []), [shown]);

  return (
    <Stack>
      <PageHeader
        title="Usage"
        description={
          readsAll && !onlyMine
            ? "Everyone's model calls (chat, completions, embeddings): requests and tokens over time. Times are UTC."
            : 'Your model calls (chat, completions, embeddings), with your keys and your sessions: requests and tokens over time. Times are UTC.'
        }
        action={
          <Group gap="xs" align="flex-start">
            <Button size="sm" variant="default" loading={report.loading} onClick={() => void report.reload()}>
              Reload
            </Button>
            <CsvExportButton query={query} disabled={report.error !== null} />
          </Group>
        }
      />
      <Paper withBorder p="md" component="section" aria-label="Report">
        <Group align="flex-end" wrap="wrap" gap="lg">
          <Choice
            id="usage-range-label"
            label="Range"
            data={[...rangePresets]}
            value={preset}
            onChange={(value) => {
              setPreset(value as RangePreset);
              if (value !== 'custom') setReportInterval(intervalFor(value as RangePreset));
            }}
          />
          {preset === 'custom' && (
            <>
              <TextInput type="date" label="First day" value={from} onChange={(event) => setFrom(event.currentTarget.value)} />
              <TextInput type="date" label="Last day" description="Empty: up to now" value={to} onChange={(event) => setTo(event.currentTarget.value)} />
            </>
          )}
          <Choice id="usage-interval-label" label="Interval" data={intervalChoices} value={interval} onChange={(value) => setReportInterval(value as UsageIntervalChoice)} />
          <Choice id="usage-group-label" label="Group by" data={groupChoices} value={groupBy} onChange={(value) => setGroupBy(value as UsageGroupBy)} />
          {readsAll && <Switch label="Only my usage" checked={onlyMine} onChange={(event) => setOnlyMine(event.currentTarget.checked)} />}
        </Group>
      </Paper>
      {'problem' in range ? (
        <Alert color="yellow" title="Choose the range" role="alert">
          {range.problem}
        </Alert>
      ) : (
        report.error !== null && (
          <Stack gap={4}>
            <ErrorAlert error={report.error} title="Could not load the usage" />
            <Text size="sm">{nextStep(report.error)}</Text>
          </Stack>
        )
      )}
      {shown !== undefined && <Summary report={shown} totals={totals} />}
      {shown !== undefined && shown.data.length === 0 && <EmptyState readsAll={readsAll && !onlyMine} />}
      {shown !== undefined && shown.data.length > 0 && (
        <>
          <Paper withBorder p="md" component="section" aria-labelledby="usage-chart-heading">
            <Stack gap="sm">
              <Group justify="space-between" wrap="wrap">
                <Text fw={600} id="usage-chart-heading" component="h2" size="lg">
                  Over time
                </Text>
                <SegmentedControl aria-label="The chart shows" data={metricChoices} value={metric} onChange={(value) => setMetric(value as UsageMetric)} />
              </Group>
              <UsageChart buckets={buckets} interval={shown.interval} metric={metric} />
              <Group>
                <Button size="xs" variant="subtle" aria-expanded={showPeriods} aria-controls="usage-periods" onClick={() => setShowPeriods((open) => !open)}>
                  {showPeriods ? "Hide the chart's numbers" : "Show the chart's numbers"}
                </Button>
              </Group>
              {showPeriods && (
                <div id="usage-periods">
                  <PeriodTable buckets={buckets} interval={shown.interval} />
                </div>
              )}
            </Stack>
          </Paper>
          <Stack gap="xs" component="section" aria-labelledby="usage-groups-heading">
            <Text fw={600} id="usage-groups-heading" component="h2" size="lg">
              By {groupNoun(shown.group_by)}
            </Text>
            <GroupTable groups={groups} groupBy={shown.group_by} label={(group) => groupLabel(group, shown.group_by, names, me)} />
          </Stack>
        </>
      )}
    </Stack>
  );
}

function Summary({ report, totals }: { report: UsageReport; totals: ReturnType<typeof sumRows> }) {
  const figures = [
    { label: 'Requests', value: formatCount(totals.calls), testId: 'usage-total-requests' },
    { label: 'Errors', value: formatCount(totals.errors), testId: 'usage-total-errors' },
    { label: 'Prompt tokens', value: formatCount(totals.promptTokens), testId: 'usage-total-prompt' },
    { label: 'Completion tokens', value: formatCount(totals.completionTokens), testId: 'usage-total-completion' },
    { label: 'Total tokens', value: formatCount(totals.totalTokens), testId: 'usage-total-tokens' },
  ];
  return (
    <Stack gap={4} component="section" aria-label="Totals of the range">
      <Text size="sm" c="dimmed" role="status" data-testid="usage-range">
        {`${report.scope === 'all' ? "Everyone's" : 'Your'} usage from ${formatBucket(Date.parse(report.start), 'hour')} to ${formatBucket(Date.parse(report.end), 'hour')}`}
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
        {figures.map((figure) => (
          <Paper key={figure.label} withBorder p="sm" data-testid={figure.testId}>
            <Text size="xs" c="dimmed">
              {figure.label}
            </Text>
            <Text fw={700} size="lg">
              {figure.value}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function EmptyState({ readsAll }: { readsAll: boolean }) {
  return (
    <Alert color="blue" title="No model calls in this range" role="status" data-testid="usage-empty">
      {readsAll
        ? 'Nobody called a model (chat, completions, embeddings) in this range. Choose a longer range, or come back after the first calls.'
        : 'You made no model call (chat, completions, embeddings) in this range, with a key or signed in. Choose a longer range; calls from the Playground or with your API keys show here.'}
    </Alert>
  );
}

const numberColumn = <Row,>(header: string, value: (row: Row) => number): Column<Row> => ({ header, nowrap: true, cell: (row) => formatCount(value(row)) });

function GroupTable({ groups, groupBy, label }: { groups: UsageGroupTotal[]; groupBy: UsageGroupBy; label(group: string | null): string }) {
  const columns: Column<UsageGroupTotal>[] = [
    { header: groupHeader(groupBy), cell: (row) => <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>{label(row.group)}</Text> },
    numberColumn('Requests', (row) => row.calls),
    numberColumn('Errors', (row) => row.errors),
    numberColumn('Prompt tokens', (row) => row.promptTokens),
    numberColumn('Completion tokens', (row) => row.completionTokens),
    numberColumn('Total tokens', (row) => row.totalTokens),
    { header: 'Mean latency', nowrap: true, cell: (row) => (row.meanLatencyMs === null ? '—' : `${formatCount(row.meanLatencyMs)} ms`) },
    { header: 'Estimated', nowrap: true, cell: (row) => (row.estimatedCalls === 0 ? '—' : `${formatCount(row.estimatedCalls)} calls`) },
  ];
  return (
    <DataTable
      caption={`Usage by ${groupNoun(groupBy)}`}
      columns={columns}
      rows={groups}
      rowKey={(row) => row.group ?? '(none)'}
      empty="No model calls in this range."
      minWidth={860}
      focusableScroll
    />
  );
}

function PeriodTable({ buckets, interval }: { buckets: UsageBucket[]; interval: UsageReport['interval'] }) {
  const columns: Column<UsageBucket>[] = [
    { header: interval === 'hour' ? 'Hour (UTC)' : 'Day (UTC)', nowrap: true, cell: (bucket) => formatBucket(bucket.start, interval) },
    numberColumn('Requests', (bucket) => bucket.calls),
    numberColumn('Errors', (bucket) => bucket.errors),
    numberColumn('Prompt tokens', (bucket) => bucket.promptTokens),
    numberColumn('Completion tokens', (bucket) => bucket.completionTokens),
    numberColumn('Total tokens', (bucket) => bucket.totalTokens),
  ];
  return <DataTable caption={`Usage per ${interval}`} columns={columns} rows={buckets} rowKey={(bucket) => String(bucket.start)} empty="No periods." minWidth={640} focusableScroll />;
}
