/**
 * The administrators' overview on the home page: how many users, API keys and running models there
 * are, the failed logins and the bans of the last 24 hours (from the audit trail) and whether the
 * audit chain is intact — each a link to the page that shows the detail. Each figure loads on its
 * own, so one failing read shows its reason without hiding the others.
 */
import { Anchor, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { Link } from 'wouter';
import { client } from '../api/client.js';
import { describeError } from '../api/describe-error.js';
import { useLoader, type Loaded } from '../api/use-loader.js';

/** The security events a failed attempt causes (the audit trail's event types). */
const banEvents = 'ip_banned,key_banned,account_locked';

/** One figure: its label, its value in words, and where it leads. */
function Figure<T>({ label, loaded, value, href, testId }: { label: string; loaded: Loaded<T>; value(data: T): string; href: string; testId: string }) {
  const shown = loaded.data === undefined ? (loaded.error === null ? 'Loading…' : 'Unavailable') : value(loaded.data);
  return (
    <Paper withBorder p="md" data-testid={testId}>
      {href.startsWith('#') ? (
        <Anchor href={href} fw={600} size="sm">
          {label}
        </Anchor>
      ) : (
        <Anchor component={Link} href={href} fw={600} size="sm">
          {label}
        </Anchor>
      )}
      <Text size="xl" fw={700} mt={4}>
        {shown}
      </Text>
      {loaded.error !== null && loaded.data === undefined && (
        <Text size="xs" c="dimmed">
          {describeError(loaded.error)}
        </Text>
      )}
    </Paper>
  );
}

export function AdminOverview() {
  const users = useLoader(() => client.users.list());
  const keys = useLoader(() => client.keys.list());
  const models = useLoader(() => client.models.list());
  const failedLogins = useLoader(() => client.audit.search({ time_from: 'now-24h', status: 'login_failed', size: 1 }));
  const bans = useLoader(() => client.audit.search({ time_from: 'now-24h', event_type: banEvents, size: 1 }));
  const chain = useLoader(() => client.audit.verify());
  return (
    <section aria-labelledby="overview-heading">
      <Title order={2} size="h3" id="overview-heading" mb="sm">
        Overview
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, xl: 6 }}>
        <Figure label="Users" testId="overview-users" loaded={users} href="/users" value={(list) => `${list.length} (${list.filter((user) => user.enabled).length} enabled)`} />
        <Figure label="API keys" testId="overview-keys" loaded={keys} href="/keys" value={(list) => `${list.length} (${list.filter((key) => key.enabled).length} enabled)`} />
        <Figure label="Running models" testId="overview-models" loaded={models} href="#running-models" value={(list) => String(list.length)} />
        <Figure label="Failed logins, 24 h" testId="overview-failed-logins" loaded={failedLogins} href="/audit?range=24h&status=login_failed" value={(result) => String(result.total)} />
        <Figure label="Bans and lockouts, 24 h" testId="overview-bans" loaded={bans} href={`/audit?range=24h&event_type=${banEvents}`} value={(result) => String(result.total)} />
        <Figure label="Audit chain" testId="overview-chain" loaded={chain} href="/audit" value={(result) => (result.ok ? 'Intact' : `Broken at record ${result.first_broken_id ?? '?'}`)} />
      </SimpleGrid>
    </section>
  );
}
