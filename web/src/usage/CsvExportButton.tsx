/**
 * "Download CSV": the server's CSV export of the report on screen (`client.usage.exportCsv`, the
 * same query), offered as a download link that the page also follows at once. A failure is shown
 * in words beside the button.
 */
import { Button, Group, Stack, Text } from '@mantine/core';
import type { UsageQuery } from '@svc/sdk';
import { useState } from 'react';
import { client } from '../api/client.js';
import { describeError } from '../api/describe-error.js';
import { fileStamp, useGeneratedDownload } from '../components/use-generated-download.js';

export function CsvExportButton({ query, disabled }: { query: UsageQuery | null; disabled: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const download = useGeneratedDownload();

  const run = async () => {
    if (query === null) return;
    setBusy(true);
    setError(null);
    try {
      const csv = await client.usage.exportCsv(query);
      download.offer(new Blob([csv], { type: 'text/csv' }), `svc-usage-${fileStamp()}.csv`);
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
      {download.link}
      {error !== null && (
        <Text size="sm" c="red.9" role="alert">
          The export failed: {describeError(error)} Try again, or choose another range.
        </Text>
      )}
    </Stack>
  );
}
