/**
 * "Download CSV": the server's CSV export of the report on screen (`client.usage.exportCsv`, the
 * same query), offered as a download link that the page also follows at once. A failure is shown
 * in words beside the button.
 */
import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import type { UsageQuery } from '@svc/sdk';
import { useEffect, useRef, useState } from 'react';
import { client } from '../api/client.js';
import { describeError } from '../api/describe-error.js';

interface Download {
  url: string;
  name: string;
}

export function CsvExportButton({ query, disabled }: { query: UsageQuery | null; disabled: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [download, setDownload] = useState<Download | null>(null);
  const link = useRef<HTMLAnchorElement>(null);
  useEffect(() => () => {
    if (download !== null) URL.revokeObjectURL(download.url);
  }, [download]);
  useEffect(() => {
    link.current?.click();
  }, [download]);

  const run = async () => {
    if (query === null) return;
    setBusy(true);
    setError(null);
    try {
      const csv = await client.usage.exportCsv(query);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      setDownload({ url: URL.createObjectURL(new Blob([csv], { type: 'text/csv' })), name: `svc-usage-${stamp}.csv` });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs">
        <Button size="sm" variant="light" loading={busy} disabled={disabled || query === null} onClick={() => void run()}>
          Download CSV
        </Button>
      </Group>
      {download !== null && (
        <Anchor ref={link} href={download.url} download={download.name} size="sm">
          Download {download.name}
        </Anchor>
      )}
      {error !== null && (
        <Text size="sm" c="red.9" role="alert">
          The export failed: {describeError(error)} Try again, or choose another range.
        </Text>
      )}
    </Stack>
  );
}
