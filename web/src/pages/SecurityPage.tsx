/**
 * Security settings (`admin`): the brute-force thresholds (per client IP, per credential from one
 * IP, per account), and the bans in force — banned IPs, banned (IP, credential) pairs and locked
 * accounts — with the time left counting down, unban one and unban all (confirmed).
 */
import { Button, Code, Fieldset, Group, NumberInput, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { BannedIp, BannedKey, LockedAccount, SecuritySettings } from '@svc/sdk';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable, type Column } from '../components/DataTable.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { formatDuration, formatTime } from '../components/format.js';
import { GuardedButton } from '../components/GuardedButton.js';
import { PageHeader } from '../components/PageHeader.js';
import { useDialog } from '../components/use-dialog.js';
import { useNow } from '../components/use-now.js';
import { useAction, useSubmit } from '../components/use-submit.js';

/** The bans in force, and when the server was asked (the countdowns start from there). */
interface Bans {
  ips: BannedIp[];
  keys: BannedKey[];
  accounts: LockedAccount[];
  fetchedAt: number;
}

async function loadBans(): Promise<Bans> {
  const [ips, keys, accounts] = await Promise.all([client.security.listBannedIps(), client.security.listBannedKeys(), client.security.listLockedAccounts()]);
  return { ips, keys, accounts, fetchedAt: Date.now() };
}

type BulkAction = 'ips' | 'keys' | 'accounts';

const bulk: Record<BulkAction, { title: string; label: string; text: string; run(): Promise<number> }> = {
  ips: { title: 'Unban all IPs', label: 'Unban all', text: 'Lift every IP ban now?', run: () => client.security.unbanAllIps() },
  keys: { title: 'Unban all keys', label: 'Unban all', text: 'Lift every credential ban now?', run: () => client.security.unbanAllKeys() },
  accounts: { title: 'Unlock all accounts', label: 'Unlock all', text: 'Unlock every locked account now (their growing waits start over)?', run: () => client.security.unlockAllAccounts() },
};

/** Re-checks the bans every this often, so new ones show without a click. */
const REFRESH_MS = 15_000;

export function SecurityPage() {
  const settings = useLoader(() => client.security.getSettings());
  const bans = useLoader(loadBans);
  const now = useNow(1000);
  const [confirm, setConfirm] = useDialog<BulkAction>();
  const action = useAction();

  // Time left, counted down in the page from what the server said when asked (no clock skew).
  const left = (remainingSeconds: number) => Math.max(0, Math.ceil(((bans.data?.fetchedAt ?? now) + remainingSeconds * 1000 - now) / 1000));
  const lastReload = useRef(0);
  const anyExpired = bans.data !== undefined && [...bans.data.ips, ...bans.data.keys, ...bans.data.accounts].some((ban) => left(ban.remaining_seconds) === 0);
  useEffect(() => {
    if (!anyExpired || bans.loading || Date.now() - lastReload.current < 5000) return;
    lastReload.current = Date.now();
    void bans.reload();
  }, [anyExpired, bans.loading, bans.reload]);
  useEffect(() => {
    const timer = window.setInterval(() => void bans.reload(), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [bans.reload]);

  /** The Actions column of a ban table: one button that lifts the ban, says so and reloads the bans. */
  const liftColumn = <Ban,>(label: string, describe: (ban: Ban) => string, lift: (ban: Ban) => Promise<string>): Column<Ban> => ({
    header: 'Actions',
    nowrap: true,
    cell: (ban) => (
      <GuardedButton
        refusal={null}
        aria-label={describe(ban)}
        onClick={() =>
          void action.run(async () => {
            notifications.show({ color: 'green', message: await lift(ban) });
            await bans.reload();
          })
        }
      >
        {label}
      </GuardedButton>
    ),
  });
  const firstLoad = bans.loading && bans.data === undefined;
  const remaining = (ban: { remaining_seconds: number }) => {
    const seconds = left(ban.remaining_seconds);
    return <span aria-label={`${formatDuration(seconds)} left`}>{seconds === 0 ? 'ending' : formatDuration(seconds)}</span>;
  };

  const ipColumns: Column<BannedIp>[] = [
    { header: 'IP', nowrap: true, cell: (ban) => <Code>{ban.ip}</Code> },
    { header: 'Banned until', cell: (ban) => formatTime(ban.banned_until) },
    { header: 'Time left', nowrap: true, cell: remaining },
    liftColumn<BannedIp>(
      'Unban',
      (ban) => `Unban IP ${ban.ip}`,
      async (ban) => {
        await client.security.unbanIp(ban.ip);
        return `IP ${ban.ip} unbanned`;
      },
    ),
  ];
  const keyColumns: Column<BannedKey>[] = [
    { header: 'IP', nowrap: true, cell: (ban) => <Code>{ban.ip}</Code> },
    { header: 'Credential', nowrap: true, cell: (ban) => <Code title="A digest of the key or token that failed; the credential itself is never stored">{ban.key_id}</Code> },
    { header: 'Banned until', cell: (ban) => formatTime(ban.banned_until) },
    { header: 'Time left', nowrap: true, cell: remaining },
    liftColumn<BannedKey>(
      'Unban',
      (ban) => `Unban credential ${ban.key_id} from ${ban.ip}`,
      async (ban) => {
        await client.security.unbanKey(ban.ip, ban.key_id);
        return `Credential ${ban.key_id} unbanned for ${ban.ip}`;
      },
    ),
  ];
  const accountColumns: Column<LockedAccount>[] = [
    { header: 'User', nowrap: true, cell: (account) => <strong>{account.username ?? account.user_id}</strong> },
    { header: 'Lockouts', nowrap: true, cell: (account) => account.lockouts },
    { header: 'Locked until', cell: (account) => formatTime(account.locked_until) },
    { header: 'Time left', nowrap: true, cell: remaining },
    liftColumn<LockedAccount>(
      'Unlock',
      (account) => `Unlock account ${account.username ?? account.user_id}`,
      async (account) => {
        await client.security.unlockAccount(account.user_id);
        return `Account ${account.username ?? account.user_id} unlocked`;
      },
    ),
  ];

  const section = (action: BulkAction, title: string, description: string, count: number, table: ReactNode) => (
    <Stack gap="xs" mt="md">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2} size="h4">
            {title}
          </Title>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        </div>
        <GuardedButton refusal={count === 0 ? 'Nothing to lift' : null} color="red" onClick={() => setConfirm(action)} aria-label={bulk[action].title}>
          {bulk[action].label}
        </GuardedButton>
      </Group>
      {table}
    </Stack>
  );

  return (
    <Stack>
      <PageHeader
        title="Security"
        description="Brute-force protection: how many failures ban an address, a credential or an account, and the bans in force."
        action={
          <Button size="sm" variant="default" loading={bans.loading} onClick={() => void bans.reload()}>
            Refresh
          </Button>
        }
      />
      <ErrorAlert error={settings.error} title="Could not load the settings" />
      {settings.data !== undefined && <SettingsForm key={JSON.stringify(settings.data)} settings={settings.data} onSaved={settings.reload} />}
      <ErrorAlert error={bans.error} title="Could not load the bans" />
      <ErrorAlert error={action.error} />
      {section(
        'ips',
        'Banned IPs',
        'Addresses with too many failed logins, keys or tokens: every request from them is refused until the ban ends.',
        bans.data?.ips.length ?? 0,
        <DataTable caption="Banned IPs" columns={ipColumns} rows={bans.data?.ips ?? []} rowKey={(ban) => ban.ip} empty={firstLoad ? 'Loading…' : 'No IP is banned.'} minWidth={600} />,
      )}
      {section(
        'keys',
        'Banned keys',
        'A key or token that failed too often from one address (named by a digest): refused from that address until the ban ends.',
        bans.data?.keys.length ?? 0,
        <DataTable
          caption="Banned keys"
          columns={keyColumns}
          rows={bans.data?.keys ?? []}
          rowKey={(ban) => `${ban.ip} ${ban.key_id}`}
          empty={firstLoad ? 'Loading…' : 'No key is banned.'}
          minWidth={700}
        />,
      )}
      {section(
        'accounts',
        'Locked accounts',
        'Accounts with too many failed logins: their logins are refused (as a wrong password) until the lockout ends.',
        bans.data?.accounts.length ?? 0,
        <DataTable
          caption="Locked accounts"
          columns={accountColumns}
          rows={bans.data?.accounts ?? []}
          rowKey={(account) => account.user_id}
          empty={firstLoad ? 'Loading…' : 'No account is locked.'}
          minWidth={600}
        />,
      )}
      <ConfirmDialog
        opened={confirm !== null}
        title={confirm === null ? '' : bulk[confirm].title}
        confirmLabel={confirm === null ? '' : bulk[confirm].label}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          if (confirm === null) return;
          const lifted = await bulk[confirm].run();
          notifications.show({ color: 'green', message: `${lifted} lifted` });
          await bans.reload();
        }}
      >
        {confirm === null ? '' : bulk[confirm].text}
      </ConfirmDialog>
    </Stack>
  );
}

/** One number field of the settings: its label, and its value in words under it. */
interface FieldSpec {
  name: string;
  label: string;
  seconds: boolean;
}

const ruleFields: FieldSpec[] = [
  { name: 'max_failures', label: 'Failures before a ban', seconds: false },
  { name: 'window_seconds', label: 'Counted within (seconds)', seconds: true },
  { name: 'ban_seconds', label: 'Ban for (seconds)', seconds: true },
];
const loginFields: FieldSpec[] = [
  { name: 'failures_before_lockout', label: 'Failures before a lockout', seconds: false },
  { name: 'wait_increment_seconds', label: 'Wait added per lockout (seconds)', seconds: true },
  { name: 'max_wait_seconds', label: 'Longest wait (seconds)', seconds: true },
  { name: 'failure_reset_seconds', label: 'Count starts over after (seconds)', seconds: true },
];

function SettingsForm({ settings, onSaved }: { settings: SecuritySettings; onSaved(): Promise<void> }) {
  const form = useForm<SecuritySettings>({
    initialValues: settings,
    validate: (values) => {
      const errors: Record<string, string> = {};
      for (const [section, fields] of [
        ['ip', ruleFields],
        ['key', ruleFields],
        ['login', loginFields],
      ] as const) {
        for (const field of fields) {
          const value = (values[section] as unknown as Record<string, unknown>)[field.name];
          if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) errors[`${section}.${field.name}`] = 'A whole number, at least 1';
        }
      }
      return errors;
    },
  });
  const submit = useSubmit(async (values: SecuritySettings) => {
    await client.security.updateSettings(values);
    notifications.show({ color: 'green', message: 'Security settings saved' });
    await onSaved();
  });
  const field = (section: 'ip' | 'key' | 'login', spec: FieldSpec) => {
    const value = (form.values[section] as unknown as Record<string, unknown>)[spec.name];
    return (
      <NumberInput
        key={spec.name}
        label={spec.label}
        min={1}
        step={1}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=" "
        description={spec.seconds && typeof value === 'number' ? formatDuration(value) : undefined}
        {...form.getInputProps(`${section}.${spec.name}`)}
      />
    );
  };
  return (
    <form onSubmit={form.onSubmit((values) => void submit.run(values))} noValidate aria-label="Security settings">
      <Stack>
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Fieldset legend="Per client IP">
            <Stack gap="xs">
              <Text size="xs" c="dimmed">
                Failed logins, keys and tokens from one address.
              </Text>
              {ruleFields.map((spec) => field('ip', spec))}
            </Stack>
          </Fieldset>
          <Fieldset legend="Per key or token, from one IP">
            <Stack gap="xs">
              <Text size="xs" c="dimmed">
                One credential failing from one address.
              </Text>
              {ruleFields.map((spec) => field('key', spec))}
            </Stack>
          </Fieldset>
          <Fieldset legend="Per account (login lockout)">
            <Stack gap="xs">
              <Text size="xs" c="dimmed">
                Each lockout waits longer, up to the longest wait.
              </Text>
              {loginFields.map((spec) => field('login', spec))}
            </Stack>
          </Fieldset>
        </SimpleGrid>
        <ErrorAlert error={submit.error} title="The settings were not saved" />
        <Group justify="flex-end">
          <Button variant="default" onClick={() => form.reset()} disabled={!form.isDirty()}>
            Reset
          </Button>
          <Button type="submit" loading={submit.busy}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
