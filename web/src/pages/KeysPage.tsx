/**
 * API keys (`keys:create` for one's own, `keys:manage` for everyone's): create (the key is shown
 * once, with a copy button; expiry from presets or a date; the owner's permissions or fewer), the
 * list with prefix, owner, expiry, last use, status and permissions, enable or disable, narrow the
 * permissions, model restrictions and reveal (`keys:manage`), usage limits (set on create or with
 * "Limits") beside the key's use today and this month, delete.
 */
import { Alert, Badge, Button, Code, CopyButton, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { ApiKey, ApiKeyCreated, Me, Model, User } from '@svc/sdk';
import { useState } from 'react';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { holds } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable, type Column } from '../components/DataTable.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { FormDialog } from '../components/FormDialog.js';
import { formatTime } from '../components/format.js';
import { GuardedButton } from '../components/GuardedButton.js';
import { expiryDateProblem, expiryOf, localDate } from '../components/key-expiry.js';
import { describeKeyPermissions, fromKeyPermissions, KeyPermissionsEditor, keyPermissionsProblem, toKeyPermissions, type KeyPermissions } from '../components/KeyPermissionsEditor.js';
import { describeModelPermissions, ModelPermissionsEditor, toModelAccess, toModelPermissions, type ModelAccess } from '../components/ModelPermissionsEditor.js';
import { PageHeader } from '../components/PageHeader.js';
import { useDialog } from '../components/use-dialog.js';
import { useAction, useSubmit } from '../components/use-submit.js';
import { noUse, useCurrentUse } from '../limits/current-use.js';
import { draftOf } from '../limits/limits-draft.js';
import { LimitsDialog } from '../limits/LimitsDialog.js';
import { LimitsEditor, limitsChoiceProblems, limitsToSend, type LimitsChoice } from '../limits/LimitsEditor.js';
import { LimitsSummary } from '../limits/LimitsSummary.js';

type Dialog =
  | { kind: 'create' }
  | { kind: 'created'; key: ApiKeyCreated }
  | { kind: 'models' | 'permissions' | 'limits' | 'delete'; key: ApiKey }
  | { kind: 'revealed'; key: ApiKey; plaintext: string }
  | null;

const expiryChoices = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'On a date…' },
];

function keyStatus(key: ApiKey): { label: string; color: string } {
  if (!key.enabled) return { label: 'disabled', color: 'gray' };
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return { label: 'expired', color: 'orange' };
  return { label: 'active', color: 'green' };
}

export function KeysPage() {
  const me = useMe();
  const manages = holds(me.permissions, 'keys:manage');
  const keys = useLoader(() => client.keys.list());
  const currentUse = useCurrentUse('key');
  const readsAllUsage = holds(me.permissions, 'usage:read_all');
  const [dialog, setDialog] = useDialog<NonNullable<Dialog>>();
  const action = useAction();
  const close = () => setDialog(null);

  const setEnabled = (key: ApiKey, enabled: boolean) =>
    action.run(async () => {
      await client.keys.update(key.id, { enabled });
      notifications.show({ color: 'green', message: `Key ${key.name} ${enabled ? 'enabled' : 'disabled'}` });
      await keys.reload();
    });
  const reveal = (key: ApiKey) =>
    action.run(async () => {
      setDialog({ kind: 'revealed', key, plaintext: await client.keys.reveal(key.id) });
    });

  const needsManage = manages ? null : 'Needs the keys:manage permission';
  const columns: Column<ApiKey>[] = [
    { header: 'Name', cell: (key) => <strong>{key.name}</strong> },
    { header: 'Prefix',
      nowrap: true, cell: (key) => <Code>{key.key_prefix}…</Code> },
    { header: 'Owner', cell: (key) => key.owner_username },
    { header: 'Expires', cell: (key) => formatTime(key.expires_at, 'never') },
    { header: 'Last used', cell: (key) => formatTime(key.last_used_at, 'never') },
    {
      header: 'Status',
      nowrap: true,
      cell: (key) => {
        const status = keyStatus(key);
        return <Badge color={status.color}>{status.label}</Badge>;
      },
    },
    { header: 'Permissions', cell: (key) => <Text size="sm">{describeKeyPermissions(key.permissions)}</Text> },
    { header: 'Models', cell: (key) => <Text size="sm">{describeModelPermissions(key.model_permissions)}</Text> },
    {
      header: 'Limits and use',
      cell: (key) => (
        <LimitsSummary
          limits={key.limits}
          none="None of its own (the owner's apply)"
          use={currentUse.data === undefined ? undefined : (currentUse.data.get(key.id) ?? noUse)}
          useHidden={
            currentUse.error !== null
              ? 'Use could not be loaded'
              : key.user_id !== me.id && !readsAllUsage
                ? "Use: seeing another user's needs usage:read_all"
                : null
          }
        />
      ),
    },
    {
      header: 'Actions',
      nowrap: true,
      cell: (key) => (
        <Group gap={6} wrap="nowrap">
          <GuardedButton refusal={null} onClick={() => void setEnabled(key, !key.enabled)} aria-label={`${key.enabled ? 'Disable' : 'Enable'} key ${key.name}`}>
            {key.enabled ? 'Disable' : 'Enable'}
          </GuardedButton>
          <GuardedButton refusal={null} onClick={() => setDialog({ kind: 'permissions', key })} aria-label={`Permissions of key ${key.name}`}>
            Permissions
          </GuardedButton>
          <GuardedButton refusal={needsManage} onClick={() => setDialog({ kind: 'models', key })} aria-label={`Models of key ${key.name}`}>
            Models
          </GuardedButton>
          <GuardedButton refusal={null} onClick={() => setDialog({ kind: 'limits', key })} aria-label={`Limits of key ${key.name}`}>
            Limits
          </GuardedButton>
          <GuardedButton
            refusal={needsManage ?? (key.revealable ? null : 'Stored under another encryption key: it cannot be revealed')}
            onClick={() => void reveal(key)}
            aria-label={`Reveal key ${key.name}`}
          >
            Reveal
          </GuardedButton>
          <GuardedButton refusal={null} color="red" onClick={() => setDialog({ kind: 'delete', key })} aria-label={`Delete key ${key.name}`}>
            Delete
          </GuardedButton>
        </Group>
      ),
    },
  ];

  return (
    <Stack>
      <PageHeader
        title="API keys"
        description={manages ? "Every user's API keys." : 'Your API keys. Send one as Authorization: Bearer <key>.'}
        action={
          <GuardedButton
            size="sm"
            variant="filled"
            refusal={holds(me.permissions, 'keys:create') ? null : 'Creating a key needs the keys:create permission'}
            onClick={() => setDialog({ kind: 'create' })}
          >
            Create key
          </GuardedButton>
        }
      />
      <ErrorAlert error={keys.error} title="Could not load the keys" />
      <ErrorAlert error={currentUse.error} title="Could not load the keys' use (their limits are shown)" />
      <ErrorAlert error={action.error} />
      <DataTable caption="API keys" columns={columns} rows={keys.data ?? []} rowKey={(key) => key.id} empty={keys.loading ? 'Loading…' : 'No API keys yet.'} minWidth={1400} />
      {dialog?.kind === 'create' && <CreateKeyDialog me={me} onClose={close} onCreated={async (key) => {
        setDialog({ kind: 'created', key });
        await keys.reload();
      }} />}
      {dialog?.kind === 'created' && <ShownOnceDialog title="Your new API key" plaintext={dialog.key.key} onClose={close} once />}
      {dialog?.kind === 'revealed' && <ShownOnceDialog title={`Key ${dialog.key.name}`} plaintext={dialog.plaintext} onClose={close} once={false} />}
      {dialog?.kind === 'models' && <ModelsDialog me={me} apiKey={dialog.key} onClose={close} onDone={keys.reload} />}
      {dialog?.kind === 'permissions' && <PermissionsDialog me={me} apiKey={dialog.key} onClose={close} onDone={keys.reload} />}
      {dialog?.kind === 'limits' && (
        <LimitsDialog
          title={`Limits of key ${dialog.key.name}`}
          limits={dialog.key.limits}
          modes={keyLimitModes}
          explanation={keyLimitExplanations}
          onClose={close}
          onSave={async (limits) => {
            await client.keys.setLimits(dialog.key.id, limits);
            notifications.show({ color: 'green', message: `Limits of key ${dialog.key.name} saved` });
            await Promise.all([keys.reload(), currentUse.reload()]);
          }}
        />
      )}
      <ConfirmDialog
        opened={dialog?.kind === 'delete'}
        title="Delete API key"
        confirmLabel="Delete"
        onClose={close}
        onConfirm={async () => {
          if (dialog?.kind !== 'delete') return;
          await client.keys.delete(dialog.key.id);
          notifications.show({ color: 'green', message: `Key ${dialog.key.name} deleted` });
          await keys.reload();
        }}
      >
        {dialog?.kind === 'delete' ? `Delete the key ${dialog.key.name}? Programs using it stop working on their next call.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}

/** The limit choices of a key and what each means. */
const keyLimitModes = { none: 'None of its own', custom: 'Set limits' };
const keyLimitExplanations = {
  default: "The server's default for new keys (Security settings), lowered to the owner's limits.",
  none: "No limits of its own: only the owner's limits apply to its calls.",
  custom: "These limits apply to the key's calls, on top of the owner's; none may exceed the owner's.",
};

/** The running models to pick a key's model restrictions from (none without `models:list`). */
function useRunningModels(me: Me) {
  const mayList = holds(me.permissions, 'models:list');
  return useLoader(() => (mayList ? client.models.list() : Promise.resolve<Model[]>([])));
}

function CreateKeyDialog({ me, onClose, onCreated }: { me: Me; onClose(): void; onCreated(key: ApiKeyCreated): Promise<void> }) {
  // Creating a key for someone else needs keys:manage; choosing them from a list needs users:manage.
  const mayChooseOwner = holds(me.permissions, 'keys:manage') && holds(me.permissions, 'users:manage');
  const users = useLoader(() => (mayChooseOwner ? client.users.list() : Promise.resolve<User[]>([])));
  const form = useForm({
    initialValues: { name: '', description: '', expiry: 'never', expiryDate: '', owner: me.id },
    validate: {
      name: (value) => (value.trim() === '' ? 'Name the key (e.g. the program that uses it)' : null),
      expiryDate: (value, values) => (values.expiry === 'date' ? expiryDateProblem(value, new Date()) : null),
    },
  });
  const [access, setAccess] = useState<ModelAccess>({ mode: 'all' });
  const [permissions, setPermissions] = useState<KeyPermissions>({ mode: 'owner' });
  const [permissionsError, setPermissionsError] = useState<string | null>(null);
  const [limits, setLimits] = useState<LimitsChoice>({ mode: 'default', draft: draftOf(null) });
  const [limitsErrors, setLimitsErrors] = useState<Record<string, string>>({});
  const running = useRunningModels(me);
  const submit = useSubmit(async (values: typeof form.values) => {
    const expiresAt = expiryOf(values.expiry, values.expiryDate, new Date());
    const narrowed = fromKeyPermissions(permissions);
    const sentLimits = limitsToSend(limits);
    const created = await client.keys.create({
      name: values.name.trim(),
      ...(values.description.trim() === '' ? {} : { description: values.description.trim() }),
      ...(expiresAt === null ? {} : { expires_at: expiresAt }),
      model_permissions: toModelPermissions(access),
      ...(narrowed === null ? {} : { permissions: narrowed }),
      ...(values.owner === me.id ? {} : { owner: values.owner }),
      ...(sentLimits === undefined ? {} : { limits: sentLimits }),
    });
    await onCreated(created);
  });
  const onSubmit = form.onSubmit((values) => {
    const problem = keyPermissionsProblem(permissions);
    const limitProblems = limitsChoiceProblems(limits);
    setPermissionsError(problem);
    setLimitsErrors(limitProblems);
    if (problem === null && Object.keys(limitProblems).length === 0) void submit.run(values);
  });
  return (
    <FormDialog opened title="Create API key" submitLabel="Create" size="lg" busy={submit.busy} error={submit.error} onClose={onClose} onSubmit={onSubmit}>
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      {mayChooseOwner ? (
        <Select
          label="Owner"
          description="The key acts with its owner's permissions."
          data={(users.data ?? []).filter((user) => user.enabled).map((user) => ({ value: user.id, label: user.username }))}
          searchable
          allowDeselect={false}
          {...form.getInputProps('owner')}
        />
      ) : (
        <Text size="sm" c="dimmed">
          The key belongs to you ({me.username}) and acts with your permissions.
        </Text>
      )}
      <ErrorAlert error={users.error} title="Could not load the users" />
      <Select label="Expires" data={expiryChoices} allowDeselect={false} {...form.getInputProps('expiry')} />
      {form.values.expiry === 'date' && (
        <TextInput
          type="date"
          label="Expiry date"
          description="The key works until the end of this day (your local time)."
          required
          min={localDate(new Date(Date.now() + 86_400_000))}
          {...form.getInputProps('expiryDate')}
        />
      )}
      <KeyPermissionsEditor
        me={me}
        value={permissions}
        error={permissionsError}
        onChange={(value) => {
          setPermissions(value);
          setPermissionsError(null);
        }}
      />
      <ModelPermissionsEditor value={access} onChange={setAccess} runningModels={running.data ?? []} />
      <ErrorAlert error={running.error} title="Could not load the running models (a UID can still be typed)" />
      <LimitsEditor
        value={limits}
        onChange={(value) => {
          setLimits(value);
          setLimitsErrors({});
        }}
        errors={limitsErrors}
        modes={{ default: 'Server default', ...keyLimitModes }}
        explanation={keyLimitExplanations}
      />
    </FormDialog>
  );
}

function ShownOnceDialog({ title, plaintext, once, onClose }: { title: string; plaintext: string; once: boolean; onClose(): void }) {
  return (
    <Modal opened onClose={onClose} title={title} centered size="lg">
      <Stack>
        {once && (
          <Alert color="yellow" title="Copy it now">
            This is the only time the key is shown. Store it somewhere safe.
          </Alert>
        )}
        <Code block data-testid="plaintext-key" style={{ wordBreak: 'break-all' }}>
          {plaintext}
        </Code>
        <Group justify="flex-end">
          <CopyButton value={plaintext}>
            {({ copied, copy }) => (
              <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-autofocus>
                {copied ? 'Copied' : 'Copy key'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ModelsDialog({ me, apiKey, onClose, onDone }: { me: Me; apiKey: ApiKey; onClose(): void; onDone(): Promise<void> }) {
  const [access, setAccess] = useState<ModelAccess>(toModelAccess(apiKey.model_permissions));
  const running = useRunningModels(me);
  const submit = useSubmit(async () => {
    await client.keys.setModelPermissions(apiKey.id, toModelPermissions(access));
    notifications.show({ color: 'green', message: `Models of key ${apiKey.name} saved` });
    onClose();
    await onDone();
  });
  return (
    <FormDialog
      opened
      title={`Models of key ${apiKey.name}`}
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
      <ModelPermissionsEditor value={access} onChange={setAccess} runningModels={running.data ?? []} />
      <ErrorAlert error={running.error} title="Could not load the running models (a UID can still be typed)" />
    </FormDialog>
  );
}

function PermissionsDialog({ me, apiKey, onClose, onDone }: { me: Me; apiKey: ApiKey; onClose(): void; onDone(): Promise<void> }) {
  const [permissions, setPermissions] = useState<KeyPermissions>(toKeyPermissions(apiKey.permissions));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = useSubmit(async () => {
    await client.keys.update(apiKey.id, { permissions: fromKeyPermissions(permissions) });
    notifications.show({ color: 'green', message: `Permissions of key ${apiKey.name} saved` });
    onClose();
    await onDone();
  });
  return (
    <FormDialog
      opened
      title={`Permissions of key ${apiKey.name}`}
      submitLabel="Save"
      size="lg"
      busy={submit.busy}
      error={submit.error}
      onClose={onClose}
      onSubmit={(event) => {
        event.preventDefault();
        const found = keyPermissionsProblem(permissions);
        setProblem(found);
        if (found === null) void submit.run();
      }}
    >
      <KeyPermissionsEditor
        me={me}
        value={permissions}
        error={problem}
        onChange={(value) => {
          setPermissions(value);
          setProblem(null);
        }}
      />
    </FormDialog>
  );
}
