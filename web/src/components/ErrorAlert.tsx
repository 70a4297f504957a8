/**
 * Shows an error from the server (or the way to it) in words; renders nothing without an error. A
 * 429 gets the full explanation of {@link RateLimitNotice}.
 */
import { Alert } from '@mantine/core';
import { RateLimitError } from '@svc/sdk';
import { describeError } from '../api/describe-error.js';
import { RateLimitNotice } from './RateLimitNotice.js';

export function ErrorAlert({ error, title = 'That did not work' }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  if (error instanceof RateLimitError) return <RateLimitNotice error={error} />;
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {describeError(error)}
    </Alert>
  );
}
