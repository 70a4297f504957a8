/** An unknown path inside the app. */
import { Alert, Anchor } from '@mantine/core';
import { Link } from 'wouter';

export function NotFound() {
  return (
    <Alert color="gray" title="No such page" role="alert">
      There is no page at this address.{' '}
      <Anchor component={Link} href="/">
        Go to the start page
      </Anchor>
      .
    </Alert>
  );
}
