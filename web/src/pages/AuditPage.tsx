/**
 * Audit center (`admin`): the audit trail, newest first — filters (user, key name, model, client
 * IP as text; category, auth type, status, event and action picked from the values the range holds),
 * time presets or a custom range, paging, auto-refresh, export (CSV or JSON Lines, through the SDK's
 * stream, offered as a download link) and the hash chain's verification. Actions read as words
 * ("Viewed own account") with the operation id beside them; the UI's own page-load calls are hidden
 * unless the "Show page loads" switch is on. `?range=24h&status=login_failed&event_type=…` in the URL
 * sets the first range and filters (the home page's overview links here that way).
 */
import { Alert, Badge, Button, Code, Group, Modal, MultiSelect, Autocomplete, Pagination, Paper, SegmentedControl, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { AuditFilterOptions, AuditFilters, AuditRecord, AuditVerification } from '@svc/sdk';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { client } from '../api/client.js';
import { describeError } from '../api/describe-error.js';
import { useLoader } from '../api/use-loader.js';
import { DataTable, type Column } from '../components/DataTable.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { PageHeader } from '../components/PageHeader.js';
import { useDialog } from '../components/use-dialog.js';
import { fileStamp, useGeneratedDownload } from '../components/use-generated-download.js';
import { describeAction, pageLoadActions } from '../audit/readable-actions.js';

const presets = [
  { value: '15m', label: '15 min' },
  { value: '1h', label: '1 h' },
  { value: '24h', label: '24 h' },
  { value: '7d', label: '7 d' },
  { value: 'custom', label: 'Custom' },
] as const;
type Preset = (typeof presets)[number]['value'];

/** How often auto-refresh searches again. */
const AUTO_REFRESH_MS = 10_000;
const pageSizes = ['25', '50', '100', '200'];

/** The text filters (substring matches on the server). */
interface TextFilters {
  user: string;
  api_key_name: string;
  model_id: string;
  client_ip: string;
}
/** The value-list filters (any of the picked values). */
interface ListFilters {
  category: string[];
  auth_type: string[];
  status: string[];
  event_type: string[];
  action: string[];
}

const emptyText: TextFilters = { user: '', api_key_name: '', model_id: '', client_ip: '' };
const emptyLists: ListFilters = { category: [], auth_type: [], status: [], event_type: [], action: [] };

/** A `datetime-local` value as ISO 8601 (in the browser's time zone), or undefined when empty. */
function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const time = new Date(local);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/** Why a custom range cannot be searched, or null (the server would refuse it with a 400). */
function rangeProblem(preset: Preset, from: string, to: string): string | null {
  if (preset !== 'custom') return null;
  const start = isoOf(from);
  const end = isoOf(to) ?? new Date().toISOString();
  return start !== undefined && start > end ? 'The range starts after it ends: choose a From before To (an empty To means now)' : null;
}

function timeRange(preset: Preset, from: string, to: string): { time_from?: string; time_to?: string } {
  if (preset !== 'custom') return { time_from: `now-${preset}`, time_to: 'now' };
  const start = isoOf(from);
  const end = isoOf(to);
  return { ...(start === undefined ? {} : { time_from: start }), ...(end === undefined ? {} : { time_to: end }) };
}

function statusColor(status: string): string {
  if (status === 'success') return 'green';
  if (status === 'error') return 'orange';
  return 'red';
}

function formatInstant(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** The machine names under the words of the "Event" column: the operation id, or event type and action. */
function eventIdOf(record: AuditRecord): string {
  return record.event_type === 'api_call' ? record.action : `${record.event_type} (${record.action})`;
}

/** The first range and list filters, from the page's URL (`?range=24h&status=login_failed`). */
function initialView(search: string): { preset: Preset; lists: ListFilters } {
  const query = new URLSearchParams(search);
  const range = query.get('range');
  const preset = presets.some((choice) => choice.value === range && range !== 'custom') ? (range as Preset) : '1h';
  const lists = { ...emptyLists };
  for (const name of Object.keys(emptyLists) as (keyof ListFilters)[]) {
    const values = (query.get(name) ?? '').split(',').filter((value) => value !== '');
    if (values.length > 0) lists[name] = values;
  }
  return { preset, lists };
}

const reasonsInWords: Record<string, string> = {
  record_altered: "a record's content no longer matches its hash",
  previous_hash_mismatch: 'a record before it was removed or its hash rewritten',
};

/**
 * The audit center. A navigation to it with other URL filters (the overview's links, or the
 * navigation's plain `/audit`) starts it afresh from those filters.
 */
export function AuditPage() {
  const search = useSearch();
  return <AuditCenter key={search} search={search} />;
}

function AuditCenter({ search }: { search: string }) {
  const [initial] = useState(() => initialView(search));
  const [preset, setPreset] = useState<Preset>(initial.preset);
  const [customFrom, setCustomFrom] = useState('');
  const [customTo, setCustomTo] = useState('');
  const [text, setText] = useState<TextFilters>(emptyText);
  const [lists, setLists] = useState<ListFilters>(initial.lists);
  const [showPageLoads, setShowPageLoads] = useState(false);
  const [debouncedText] = useDebouncedValue(text, 400);
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(50);
  const [autoRefresh, setAutoRefresh] = useState(false);
  const [shown, setShown] = useDialog<AuditRecord>();

  const range = useMemo(() => timeRange(preset, customFrom, customTo), [preset, customFrom, customTo]);
  const filters = useMemo<AuditFilters>(() => {
    const picked: Record<string, string> = {};
    for (const [name, value] of Object.entries(debouncedText)) if (value.trim() !== '') picked[name] = value.trim();
    for (const [name, values] of Object.entries(lists)) if ((values as string[]).length > 0) picked[name] = (values as string[]).join(',');
    // The UI's own page-load calls are recorded, but hidden unless asked for.
    return { ...range, ...picked, ...(showPageLoads ? {} : { exclude_action: pageLoadActions.join(',') }) };
  }, [range, debouncedText, lists, showPageLoads]);
  const filtersKey = JSON.stringify(filters);

  // A new filter starts at the first page.
  const previousKey = useRef(filtersKey);
  useEffect(() => {
    if (previousKey.current !== filtersKey) {
      previousKey.current = filtersKey;
      setPage(1);
    }
  }, [filtersKey]);

  const problem = rangeProblem(preset, customFrom, customTo);
  // A range the server would refuse is not sent; the reason shows where the server's would.
  const checked = <T,>(load: () => Promise<T>) => (problem === null ? load() : Promise.reject(new Error(problem)));
  const results = useLoader(() => checked(() => client.audit.search({ ...filters, page_from: (page - 1) * size, size })), [filtersKey, page, size, problem]);
  const options = useLoader(() => checked(() => client.audit.filterOptions(range)), [JSON.stringify(range), problem]);
  const verification = useLoader(() => client.audit.verify());

  useEffect(() => {
    if (!autoRefresh) return;
    const timer = window.setInterval(() => {
      void results.reload();
      void options.reload();
    }, AUTO_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [autoRefresh, results.reload, options.reload]);

  // After a failed search, the old page is not shown as if it matched.
  const shownResults = results.error === null ? results.data : undefined;
  const total = shownResults?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / size));
  const first = total === 0 ? 0 : (page - 1) * size + 1;
  const last = Math.min(total, page * size);

  const columns: Column<AuditRecord>[] = [
    { header: 'Time', nowrap: true, cell: (record) => formatInstant(record.timestamp) },
    {
      header: 'Event',
      cell: (record) => (
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            {describeAction(record)}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {eventIdOf(record)} · {record.category}
          </Text>
        </Stack>
      ),
    },
    { header: 'User', nowrap: true, cell: (record) => record.user ?? '—' },
    { header: 'Credential', cell: (record) => (record.api_key_name === null ? record.auth_type : `${record.auth_type}: ${record.api_key_name}`) },
    { header: 'Model', nowrap: true, cell: (record) => record.model_id ?? '—' },
    { header: 'Client IP', nowrap: true, cell: (record) => record.client_ip ?? '—' },
    {
      header: 'Status',
      nowrap: true,
      cell: (record) => (
        <Badge variant="light" color={statusColor(record.status)}>
          {record.status}
          {record.http_status === null ? '' : ` ${record.http_status}`}
        </Badge>
      ),
    },
    { header: 'Target / reason', cell: (record) => <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{[record.target, record.reason].filter((part) => part !== null).join(' · ') || '—'}</Text> },
    {
      header: 'Details',
      nowrap: true,
      cell: (record) => (
        <Button size="xs" variant="subtle" onClick={() => setShown(record)} aria-label={`Details of record ${record.id}`}>
          Details
        </Button>
      ),
    },
  ];

  const choices = (field: keyof AuditFilterOptions) => options.data?.[field] ?? [];
  const setTextFilter = (name: keyof TextFilters) => (value: string) => setText((current) => ({ ...current, [name]: value }));
  const setListFilter = (name: keyof ListFilters) => (values: string[]) => setLists((current) => ({ ...current, [name]: values }));
  const filtered = JSON.stringify(text) !== JSON.stringify(emptyText) || JSON.stringify(lists) !== JSON.stringify(emptyLists);

  return (
    <Stack>
      <PageHeader
        title="Audit center"
        description="Every API call and security event, newest first. Records are chained by hashes, so an edit or a removal shows."
        action={
          <Group gap="xs">
            <Switch label="Auto-refresh (10 s)" checked={autoRefresh} onChange={(event) => setAutoRefresh(event.currentTarget.checked)} />
            <Button size="sm" variant="default" loading={results.loading} onClick={() => void Promise.all([results.reload(), options.reload()])}>
              Refresh
            </Button>
          </Group>
        }
      />
      <ChainStatus verification={verification.data} error={verification.error} loading={verification.loading} onVerify={verification.reload} />
      <Paper withBorder p="md" component="section" aria-label="Filters">
        <Stack gap="sm">
          <Group align="flex-end" wrap="wrap">
            <Stack gap={4}>
              <Text size="sm" fw={500} id="audit-range-label">
                Time range
              </Text>
              <SegmentedControl aria-labelledby="audit-range-label" data={[...presets]} value={preset} onChange={(value) => setPreset(value as Preset)} />
            </Stack>
            {preset === 'custom' && (
              <>
                <TextInput type="datetime-local" label="From" value={customFrom} onChange={(event) => setCustomFrom(event.currentTarget.value)} />
                <TextInput type="datetime-local" label="To" description="Empty: now" value={customTo} onChange={(event) => setCustomTo(event.currentTarget.value)} />
              </>
            )}
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            <Autocomplete label="User" placeholder="Contains…" data={choices('user')} value={text.user} onChange={setTextFilter('user')} />
            <Autocomplete label="Key name" placeholder="Contains…" data={choices('api_key_name')} value={text.api_key_name} onChange={setTextFilter('api_key_name')} />
            <Autocomplete label="Model" placeholder="Contains…" data={choices('model_id')} value={text.model_id} onChange={setTextFilter('model_id')} />
            <Autocomplete label="Client IP" placeholder="Contains…" data={choices('client_ip')} value={text.client_ip} onChange={setTextFilter('client_ip')} />
            <MultiSelect label="Category" placeholder="Any" data={choices('category')} value={lists.category} onChange={setListFilter('category')} searchable clearable />
            <MultiSelect label="Auth type" placeholder="Any" data={choices('auth_type')} value={lists.auth_type} onChange={setListFilter('auth_type')} searchable clearable />
            <MultiSelect label="Status" placeholder="Any" data={choices('status')} value={lists.status} onChange={setListFilter('status')} searchable clearable />
            <MultiSelect label="Event" placeholder="Any" data={choices('event_type')} value={lists.event_type} onChange={setListFilter('event_type')} searchable clearable />
            <MultiSelect label="Action" placeholder="Any" data={choices('action')} value={lists.action} onChange={setListFilter('action')} searchable clearable />
          </SimpleGrid>
          {problem === null && <ErrorAlert error={options.error} title="Could not load the filter choices (typing still filters)" />}
          <Switch
            label="Show page loads"
            description={`The calls the web UI makes on every page (${pageLoadActions.join(', ')}): recorded, hidden unless this is on`}
            checked={showPageLoads}
            onChange={(event) => setShowPageLoads(event.currentTarget.checked)}
          />
          <Group justify="space-between" wrap="wrap">
            <Button
              variant="subtle"
              size="xs"
              disabled={!filtered}
              onClick={() => {
                setText(emptyText);
                setLists(emptyLists);
              }}
            >
              Clear filters
            </Button>
            <ExportButtons filters={filters} />
          </Group>
        </Stack>
      </Paper>
      <ErrorAlert error={results.error} title="Could not search the audit trail" />
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" role="status" data-testid="audit-count">
          {results.error !== null ? 'No result' : total === 0 ? 'No matching record' : `Records ${first}–${last} of ${total}`}
        </Text>
        <Group gap="xs">
          <Select
            aria-label="Records per page"
            w={130}
            data={pageSizes.map((value) => ({ value, label: `${value} / page` }))}
            value={String(size)}
            allowDeselect={false}
            onChange={(value) => {
              setSize(Number(value ?? 50));
              setPage(1);
            }}
          />
          <Pagination
            total={pages}
            value={page}
            onChange={setPage}
            size="sm"
            aria-label="Pages of records"
            getItemProps={(number) => ({ 'aria-label': `Page ${number}` })}
            getControlProps={(control) => ({ 'aria-label': `${control[0]?.toUpperCase()}${control.slice(1)} page` })}
          />
        </Group>
      </Group>
      <DataTable
        caption="Audit records"
        columns={columns}
        rows={shownResults?.hits ?? []}
        rowKey={(record) => String(record.id)}
        empty={results.loading && results.data === undefined ? 'Loading…' : 'No record matches these filters in this time range.'}
        minWidth={960}
      />
      <Modal opened={shown !== null} onClose={() => setShown(null)} title={shown === null ? '' : `Audit record ${shown.id}`} size="lg" centered>
        {shown !== null && (
          <Stack gap="xs">
            <Text size="sm">
              {describeAction(shown)} — operation <Code>{shown.action}</Code>
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {JSON.stringify(shown, null, 2)}
            </Code>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

function ChainStatus({ verification, error, loading, onVerify }: { verification: AuditVerification | undefined; error: unknown; loading: boolean; onVerify(): Promise<void> }) {
  const again = (
    <Button size="xs" variant="light" loading={loading} onClick={() => void onVerify()}>
      Verify again
    </Button>
  );
  if (error !== null && error !== undefined) {
    return (
      <Alert color="red" title="Could not verify the hash chain" role="alert">
        <Group justify="space-between">
          <Text size="sm">{describeError(error)}</Text>
          {again}
        </Group>
      </Alert>
    );
  }
  if (verification === undefined) return null;
  if (verification.ok) {
    return (
      <Alert color="green" title="Hash chain intact" data-testid="chain-status">
        <Group justify="space-between" wrap="wrap">
          <Text size="sm">
            {verification.checked} records checked; newest hash <Code>{verification.head_hash?.slice(0, 16) ?? '—'}…</Code> (keep it elsewhere: a later check that no longer contains it shows a rewrite).
          </Text>
          {again}
        </Group>
      </Alert>
    );
  }
  return (
    <Alert color="red" title="The hash chain is broken" role="alert" data-testid="chain-status">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm">
          At record {verification.first_broken_id ?? '?'}: {reasonsInWords[verification.reason ?? ''] ?? verification.reason ?? 'unknown reason'}. {verification.checked} records checked.
        </Text>
        {again}
      </Group>
    </Alert>
  );
}

const formats = {
  csv: { label: 'CSV', type: 'text/csv', extension: 'csv' },
  jsonl: { label: 'JSON Lines', type: 'application/x-ndjson', extension: 'jsonl' },
} as const;

/**
 * Export buttons: the SDK streams the export; the page collects it into a Blob (a browser download
 * of generated data needs the whole file) and offers it as a download link, which it also follows.
 */
function ExportButtons({ filters }: { filters: AuditFilters }) {
  const [busy, setBusy] = useState<keyof typeof formats | null>(null);
  const [error, setError] = useState<unknown>(null);
  const download = useGeneratedDownload();

  const run = async (format: keyof typeof formats) => {
    setBusy(format);
    setError(null);
    try {
      const stream = await client.audit.export(format, filters);
      const blob = new Blob([await new Response(stream).blob()], { type: formats[format].type });
      download.offer(blob, `svc-audit-${fileStamp()}.${formats[format].extension}`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs">
        {(Object.keys(formats) as (keyof typeof formats)[]).map((format) => (
          <Button key={format} size="xs" variant="light" loading={busy === format} onClick={() => void run(format)}>
            Export {formats[format].label}
          </Button>
        ))}
      </Group>
      {download.link}
      {error !== null && (
        <Text size="sm" c="red" role="alert">
          The export failed: {describeError(error)}
        </Text>
      )}
    </Stack>
  );
}
