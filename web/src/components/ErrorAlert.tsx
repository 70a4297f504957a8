/** Shows an error from the server (or the way to it) in words; renders nothing without an error. */
import { Alert } from '@mantine/core';
import { describeError } from '../api/describe-error.js';

export function ErrorAlert({ error, title = 'That did not work' }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {describeError(error)}
    </Alert>
  );
}
