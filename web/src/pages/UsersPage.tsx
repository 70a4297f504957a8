/**
 * Users (`users:manage`): the table of accounts, and create, permissions, usage limits (set on
 * create or with "Limits") beside the user's use today and this month, enable/disable, password and
 * delete. Actions the server would refuse (own account, a user holding permissions the caller
 * lacks, the last enabled administrator) are shown disabled with the reason.
 */
import { Badge, Button, Checkbox, Group, Stack, TextInput } from '@mantine/core';
import { PasswordField } from '../components/PasswordField.js';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Me, Permission, User } from '@svc/sdk';
import { useState } from 'react';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { whyNotAdminister, whyNotRemoveAdmin } from '../auth/permissions.js';
import { useMe, usePasswordMinLength } from '../auth/session.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable, type Column } from '../components/DataTable.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { FormDialog } from '../components/FormDialog.js';
import { formatTime } from '../components/format.js';
import { GuardedButton } from '../components/GuardedButton.js';
import { PageHeader } from '../components/PageHeader.js';
import { passwordValidators } from '../components/password-rules.js';
import { PermissionPicker } from '../components/PermissionPicker.js';
import { useDialog } from '../components/use-dialog.js';
import { useAction, useSubmit } from '../components/use-submit.js';
import { describeError } from '../api/describe-error.js';
import { holds } from '../auth/permissions.js';
import { noUse, useCurrentUse } from '../limits/current-use.js';
import { draftOf } from '../limits/limits-draft.js';
import { LimitsDialog } from '../limits/LimitsDialog.js';
import { LimitsEditor, limitsChoiceProblems, limitsToSend, type LimitsChoice } from '../limits/LimitsEditor.js';
import { LimitsSummary } from '../limits/LimitsSummary.js';

type Dialog = { kind: 'create' } | { kind: 'permissions' | 'password' | 'limits' | 'delete'; user: User } | null;

/** The limit choices of a user and what each means. */
const userLimitModes = { none: 'No limits', custom: 'Set limits' };
const userLimitExplanations = {
  none: "No limits: the user's calls are limited only by their keys' own limits.",
  custom: "These limits apply to all of the user's calls, every key and session included; no key of theirs may exceed them.",
};

export function UsersPage() {
  const me = useMe();
  const minLength = usePasswordMinLength();
  const users = useLoader(() => client.users.list());
  const currentUse = useCurrentUse('user');
  const readsAllUsage = holds(me.permissions, 'usage:read_all');
  const [dialog, setDialog] = useDialog<NonNullable<Dialog>>();
  const action = useAction();
  const list = users.data ?? [];

  const setEnabled = (user: User, enabled: boolean) =>
    action.run(async () => {
      await client.users.update(user.id, { enabled });
      notifications.show({ color: 'green', message: `${user.username} ${enabled ? 'enabled' : 'disabled'}` });
      await users.reload();
    });

  const columns: Column<User>[] = [
    { header: 'Username', cell: (user) => <strong>{user.username}</strong> },
    {
      header: 'Status',
      nowrap: true,
      cell: (user) => <Badge color={user.enabled ? 'green' : 'gray'}>{user.enabled ? 'enabled' : 'disabled'}</Badge>,
    },
    {
      header: 'Permissions',
      cell: (user) => (
        <Group gap={4}>
          {user.permissions.length === 0 ? '—' : user.permissions.map((p) => <Badge key={p} variant="outline" size="sm">{p}</Badge>)}
        </Group>
      ),
    },
    {
      header: 'Limits and use',
      cell: (user) => (
        <LimitsSummary
          limits={user.limits}
          none="None"
          use={currentUse.data === undefined ? undefined : (currentUse.data.get(user.id) ?? noUse)}
          useHidden={
            currentUse.error !== null
              ? 'Use could not be loaded'
              : user.id !== me.id && !readsAllUsage
                ? "Use: seeing another user's needs usage:read_all"
                : null
          }
        />
      ),
    },
    { header: 'Created', cell: (user) => formatTime(user.created_at) },
    {
      header: 'Actions',
      nowrap: true,
      cell: (user) => {
        const notYours = whyNotAdminister(me, user);
        const lastAdmin = whyNotRemoveAdmin(user, list);
        return (
          <Group gap={6} wrap="nowrap">
            <GuardedButton refusal={notYours} onClick={() => setDialog({ kind: 'permissions', user })} aria-label={`Permissions of ${user.username}`}>
              Permissions
            </GuardedButton>
            <GuardedButton refusal={notYours} onClick={() => setDialog({ kind: 'limits', user })} aria-label={`Limits of ${user.username}`}>
              Limits
            </GuardedButton>
            <GuardedButton
              refusal={notYours ?? (user.enabled ? lastAdmin : null)}
              onClick={() => void setEnabled(user, !user.enabled)}
              aria-label={`${user.enabled ? 'Disable' : 'Enable'} ${user.username}`}
            >
              {user.enabled ? 'Disable' : 'Enable'}
            </GuardedButton>
            <GuardedButton refusal={notYours} onClick={() => setDialog({ kind: 'password', user })} aria-label={`Set password of ${user.username}`}>
              Password
            </GuardedButton>
            <GuardedButton refusal={notYours ?? lastAdmin} color="red" onClick={() => setDialog({ kind: 'delete', user })} aria-label={`Delete ${user.username}`}>
              Delete
            </GuardedButton>
          </Group>
        );
      },
    },
  ];

  return (
    <Stack>
      <PageHeader
        title="Users"
        description="Accounts that can log in. You can grant only permissions you hold."
        action={<Button onClick={() => setDialog({ kind: 'create' })}>Create user</Button>}
      />
      <ErrorAlert error={users.error} title="Could not load the users" />
      <ErrorAlert error={currentUse.error} title="Could not load the users' use (their limits are shown)" />
      <ErrorAlert error={action.error} />
      <DataTable caption="Users" columns={columns} rows={list} rowKey={(user) => user.id} empty={users.loading ? 'Loading…' : 'No users.'} minWidth={1100} />
      {dialog?.kind === 'create' && <CreateUserDialog me={me} minLength={minLength} onClose={() => setDialog(null)} onDone={users.reload} />}
      {dialog?.kind === 'permissions' && <PermissionsDialog me={me} user={dialog.user} onClose={() => setDialog(null)} onDone={users.reload} />}
      {dialog?.kind === 'limits' && (
        <LimitsDialog
          title={`Limits of ${dialog.user.username}`}
          limits={dialog.user.limits}
          modes={userLimitModes}
          explanation={userLimitExplanations}
          onClose={() => setDialog(null)}
          onSave={async (limits) => {
            await client.users.setLimits(dialog.user.id, limits);
            notifications.show({ color: 'green', message: `Limits of ${dialog.user.username} saved` });
            await Promise.all([users.reload(), currentUse.reload()]);
          }}
        />
      )}
      {dialog?.kind === 'password' && <PasswordDialog user={dialog.user} minLength={minLength} onClose={() => setDialog(null)} />}
      <ConfirmDialog
        opened={dialog?.kind === 'delete'}
        title="Delete user"
        confirmLabel="Delete"
        onClose={() => setDialog(null)}
        onConfirm={async () => {
          if (dialog?.kind !== 'delete') return;
          await client.users.delete(dialog.user.id);
          notifications.show({ color: 'green', message: `${dialog.user.username} deleted` });
          await users.reload();
        }}
      >
        {dialog?.kind === 'delete' ? `Delete ${dialog.user.username}? Their API keys and sessions end with the account.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}

interface DialogProps {
  onClose(): void;
  onDone(): Promise<void>;
}

function CreateUserDialog({ me, minLength, onClose, onDone }: DialogProps & { me: Me; minLength: number }) {
  const form = useForm({
    initialValues: { username: '', password: '', confirmation: '', permissions: [] as Permission[] },
    validate: { username: (value) => (value.trim() === '' ? 'Choose a username' : null), ...passwordValidators(minLength) },
  });
  const [limits, setLimits] = useState<LimitsChoice>({ mode: 'none', draft: draftOf(null) });
  const [limitsErrors, setLimitsErrors] = useState<Record<string, string>>({});
  const submit = useSubmit(async (values: typeof form.values) => {
    const username = values.username.trim();
    const created = await client.users.create({ username, password: values.password, permissions: values.permissions });
    // The contract sets a user's limits by update only: a second call, whose failure is reported
    // as such (the account exists; its limits can be set again with "Limits").
    const sentLimits = limitsToSend(limits);
    let limitsFailure: unknown = null;
    if (sentLimits !== null && sentLimits !== undefined) {
      try {
        await client.users.setLimits(created.id, sentLimits);
      } catch (caught) {
        limitsFailure = caught;
      }
    }
    if (limitsFailure === null) notifications.show({ color: 'green', message: `${username} created` });
    else notifications.show({ color: 'red', autoClose: false, message: `${username} created, but the limits were not saved: ${describeError(limitsFailure)} Set them with Limits.` });
    onClose();
    await onDone();
  });
  return (
    <FormDialog
      opened
      title="Create user"
      submitLabel="Create"
      size="lg"
      busy={submit.busy}
      error={submit.error}
      onClose={onClose}
      onSubmit={form.onSubmit((values) => {
        const problems = limitsChoiceProblems(limits);
        setLimitsErrors(problems);
        if (Object.keys(problems).length === 0) void submit.run(values);
      })}
    >
      <TextInput label="Username" required data-autofocus autoComplete="off" {...form.getInputProps('username')} />
      <PasswordField label="Password" description={`At least ${minLength} characters`} required autoComplete="new-password" {...form.getInputProps('password')} />
      <PasswordField label="Confirm password" required autoComplete="new-password" {...form.getInputProps('confirmation')} />
      <PermissionPicker me={me} value={form.values.permissions} onChange={(value) => form.setFieldValue('permissions', value)} />
      <LimitsEditor
        value={limits}
        onChange={(value) => {
          setLimits(value);
          setLimitsErrors({});
        }}
        errors={limitsErrors}
        modes={userLimitModes}
        explanation={userLimitExplanations}
      />
    </FormDialog>
  );
}

function PermissionsDialog({ me, user, onClose, onDone }: DialogProps & { me: Me; user: User }) {
  const [permissions, setPermissions] = useState<Permission[]>(user.permissions);
  const submit = useSubmit(async () => {
    await client.users.setPermissions(user.id, permissions);
    notifications.show({ color: 'green', message: `Permissions of ${user.username} saved` });
    onClose();
    await onDone();
  });
  return (
    <FormDialog
      opened
      title={`Permissions of ${user.username}`}
      submitLabel="Save"
      size="lg"
      busy={submit.busy}
      error={submit.error}
      onClose={onClose}
      onSubmit={(event) => {
        event.preventDefault();
        void submit.run();
      }}
    >
      <PermissionPicker me={me} value={permissions} onChange={setPermissions} />
    </FormDialog>
  );
}

function PasswordDialog({ user, minLength, onClose }: { user: User; minLength: number; onClose(): void }) {
  const form = useForm({ initialValues: { password: '', confirmation: '', mustChange: true }, validate: passwordValidators(minLength) });
  const submit = useSubmit(async (values: typeof form.values) => {
    await client.users.setPassword(user.id, { new_password: values.password, must_change_password: values.mustChange });
    notifications.show({ color: 'green', message: `Password of ${user.username} changed; their sessions ended` });
    onClose();
  });
  return (
    <FormDialog opened title={`New password for ${user.username}`} submitLabel="Set password" busy={submit.busy} error={submit.error} onClose={onClose} onSubmit={form.onSubmit((v) => void submit.run(v))}>
      <PasswordField label="New password" description={`At least ${minLength} characters`} required data-autofocus autoComplete="new-password" {...form.getInputProps('password')} />
      <PasswordField label="Confirm password" required autoComplete="new-password" {...form.getInputProps('confirmation')} />
      <Checkbox label="Ask them to choose their own password after logging in" {...form.getInputProps('mustChange', { type: 'checkbox' })} />
    </FormDialog>
  );
}
