/**
 * What a 429 means, in words, instead of the server's raw answer: what happened, how long it lasts
 * (from `Retry-After`), and what an administrator can do about it. Shown wherever an error is shown.
 */
import { Alert, Code, List, Stack, Text } from '@mantine/core';
import type { RateLimitError } from '@svc/sdk';
import { formatDuration } from './format.js';

/** What happened, by the server's error code. */
function whatHappened(code: string | undefined): string {
  switch (code) {
    case 'key_banned':
      return 'This API key or token failed too often from your network address, so it is refused from there for a while.';
    case 'login_throttled':
      return 'Too many sign-ins are failing or in progress from your network address at once. Wait a moment and try again.';
    default:
      return 'There were too many failed sign-in attempts from your network address, so svc refuses new sign-ins from it for a while. This protects accounts against password guessing.';
  }
}

/** The wait the server asked for, in seconds, or null when it named none. */
function retryAfterSeconds(headers: Headers): number | null {
  const seconds = Number(headers.get('retry-after'));
  return headers.has('retry-after') && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

export function RateLimitNotice({ error }: { error: RateLimitError }) {
  const seconds = retryAfterSeconds(error.headers);
  const until = seconds === null ? null : new Date(Date.now() + seconds * 1000).toLocaleTimeString(undefined, { timeStyle: 'short' });
  return (
    <Alert color="orange" title="Too many failed attempts" role="alert" variant="light" data-testid="rate-limited">
      <Stack gap="xs">
        <Text size="sm">{whatHappened(error.code)}</Text>
        <Text size="sm" fw={500}>
          {seconds === null ? 'Try again later.' : `Try again in ${formatDuration(seconds)} (at ${until}).`}
        </Text>
        <Text size="sm">People who are already signed in from this address are not affected.</Text>
        <Text size="sm">An administrator can lift the ban sooner:</Text>
        <List size="sm">
          <List.Item>on the Security page of this web UI (banned addresses, locked accounts);</List.Item>
          <List.Item>
            or on the server itself: <Code>svc-unban list</Code>, then <Code>svc-unban lift --ip &lt;address&gt;</Code> or{' '}
            <Code>svc-unban lift --user &lt;username&gt;</Code>.
          </List.Item>
        </List>
      </Stack>
    </Alert>
  );
}
