/**
 * A dialog holding a form: submit runs `onSubmit`, the server's error is shown in words above the
 * buttons, and the dialog closes on success. Fields come as children (Mantine inputs bound to a
 * `useForm`), validation is the caller's `form.onSubmit`.
 */
import { Button, Group, Modal, Stack } from '@mantine/core';
import type { FormEventHandler, ReactNode } from 'react';
import { ErrorAlert } from './ErrorAlert.js';

export interface FormDialogProps {
  opened: boolean;
  title: string;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: FormEventHandler<HTMLFormElement>;
  onClose(): void;
  children: ReactNode;
  size?: string;
}

export function FormDialog({ opened, title, submitLabel, busy, error, onSubmit, onClose, children, size = 'md' }: FormDialogProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered size={size}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {children}
          <ErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
