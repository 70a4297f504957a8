/** What a direct link to a page the user may not open shows. */
import { Alert } from '@mantine/core';
import type { PageDefinition } from './registry.js';

export function Forbidden({ page }: { page: PageDefinition }) {
  return (
    <Alert color="orange" title={`You cannot open ${page.label}`} role="alert">
      This page needs the permission {page.anyOf.join(' or ')}, which your account does not hold. Ask an administrator to grant it.
    </Alert>
  );
}
