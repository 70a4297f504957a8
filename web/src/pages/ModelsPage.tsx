/**
 * Model launch (`/`, `models:list`): the registered model families of every type (built-in and
 * custom), a launch form (a family on the built-in engine, or any model behind an OpenAI-compatible
 * upstream server), and the running models with stop. Launching and stopping need `models:write`;
 * without it the buttons are shown disabled with the reason.
 */
import { Autocomplete, Badge, Button, Code, Group, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { PasswordField } from '../components/PasswordField.js';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Model, ModelEngine, ModelLaunch, ModelRegistration, ModelType } from '@svc/sdk';
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
import { PageHeader } from '../components/PageHeader.js';
import { useDialog } from '../components/use-dialog.js';
import { useSubmit } from '../components/use-submit.js';
import { modelNamePattern, modelTypeOptions, modelTypes, modelUidPattern } from '../models/model-types.js';

/** What the launch dialog starts with: a family picked from the table, or nothing. */
interface LaunchPreset {
  modelType: ModelType;
  modelName: string;
}

type Dialog = { kind: 'launch'; preset: LaunchPreset | null } | { kind: 'stop'; model: Model } | null;

/** Every family of every type (one call per type, as the contract lists them by type). */
async function listFamilies(): Promise<ModelRegistration[]> {
  const perType = await Promise.all(modelTypes.map((type) => client.modelRegistrations.list(type)));
  return perType.flat();
}

function launchedAt(model: Model): string {
  return formatTime(new Date(model.created * 1000).toISOString());
}

export function ModelsPage() {
  const me = useMe();
  const running = useLoader(() => client.models.list());
  const families = useLoader(listFamilies);
  const [dialog, setDialog] = useDialog<NonNullable<Dialog>>();
  const close = () => setDialog(null);
  const refusal = holds(me.permissions, 'models:write') ? null : 'Launching and stopping models needs the models:write permission';

  const modelColumns: Column<Model>[] = [
    { header: 'UID', nowrap: true, cell: (model) => <strong>{model.model_uid}</strong> },
    { header: 'Family', cell: (model) => model.model_name },
    { header: 'Type', nowrap: true, cell: (model) => model.model_type },
    { header: 'Engine', nowrap: true, cell: (model) => <Badge variant="light" color={model.model_engine === 'builtin' ? 'blue' : 'grape'}>{model.model_engine}</Badge> },
    { header: 'Abilities', cell: (model) => model.model_ability.join(', ') || '—' },
    {
      header: 'Upstream',
      cell: (model) =>
        model.upstream === null ? (
          '—'
        ) : (
          <Stack gap={0}>
            <Code>{model.upstream.base_url}</Code>
            <Text size="xs" c="dimmed">
              model {model.upstream.model}
              {model.upstream.has_api_key ? ' · key set' : ' · no key'}
            </Text>
          </Stack>
        ),
    },
    { header: 'Launched', cell: launchedAt },
    {
      header: 'Actions',
      nowrap: true,
      cell: (model) => (
        <GuardedButton refusal={refusal} color="red" onClick={() => setDialog({ kind: 'stop', model })} aria-label={`Stop model ${model.model_uid}`}>
          Stop
        </GuardedButton>
      ),
    },
  ];

  const familyColumns: Column<ModelRegistration>[] = [
    { header: 'Family', nowrap: true, cell: (family) => <strong>{family.model_name}</strong> },
    { header: 'Type', nowrap: true, cell: (family) => family.model_type },
    { header: 'Abilities', cell: (family) => family.model_ability.join(', ') || '—' },
    { header: 'Source', nowrap: true, cell: (family) => (family.is_builtin ? 'built-in' : 'registered') },
    {
      header: 'Notes',
      cell: (family) => (
        <Text size="sm">
          {[
            family.description,
            family.requires_system_message_first ? 'system message first' : null,
            family.dimensions === null ? null : `${family.dimensions} dimensions`,
          ]
            .filter((part) => part !== null && part !== '')
            .join(' · ') || '—'}
        </Text>
      ),
    },
    {
      header: 'Actions',
      nowrap: true,
      cell: (family) => (
        <GuardedButton
          refusal={refusal}
          onClick={() => setDialog({ kind: 'launch', preset: { modelType: family.model_type, modelName: family.model_name } })}
          aria-label={`Launch ${family.model_name}`}
        >
          Launch
        </GuardedButton>
      ),
    },
  ];

  return (
    <Stack>
      <PageHeader
        title="Models"
        description="Running models and the families they are launched from."
        action={
          <Group gap="xs">
            <Button size="sm" variant="default" loading={running.loading || families.loading} onClick={() => void Promise.all([running.reload(), families.reload()])}>
              Refresh
            </Button>
            <GuardedButton size="sm" variant="filled" refusal={refusal} onClick={() => setDialog({ kind: 'launch', preset: null })} aria-label="Launch model">
              Launch model
            </GuardedButton>
          </Group>
        }
      />
      <Title order={2} size="h4" id="running-models">
        Running models
      </Title>
      <ErrorAlert error={running.error} title="Could not load the running models" />
      <DataTable
        caption="Running models"
        columns={modelColumns}
        rows={running.data ?? []}
        rowKey={(model) => model.model_uid}
        empty={running.loading ? 'Loading…' : 'No model is running. Launch one from a family below.'}
        minWidth={1000}
      />
      <Title order={2} size="h4" mt="md">
        Model families
      </Title>
      <ErrorAlert error={families.error} title="Could not load the model families" />
      <DataTable
        caption="Model families"
        columns={familyColumns}
        rows={families.data ?? []}
        rowKey={(family) => `${family.model_type}/${family.model_name}`}
        empty={families.loading ? 'Loading…' : 'No model family is registered.'}
        minWidth={900}
      />
      {dialog?.kind === 'launch' && (
        <LaunchDialog
          preset={dialog.preset}
          families={families.data ?? []}
          onClose={close}
          onLaunched={async (model) => {
            notifications.show({ color: 'green', message: `Model ${model.model_uid} launched` });
            close();
            await running.reload();
          }}
        />
      )}
      <ConfirmDialog
        opened={dialog?.kind === 'stop'}
        title="Stop model"
        confirmLabel="Stop"
        onClose={close}
        onConfirm={async () => {
          if (dialog?.kind !== 'stop') return;
          await client.models.stop(dialog.model.model_uid);
          notifications.show({ color: 'green', message: `Model ${dialog.model.model_uid} stopped` });
          await running.reload();
        }}
      >
        {dialog?.kind === 'stop' ? `Stop the model ${dialog.model.model_uid}? Calls to it fail until it is launched again.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}

interface LaunchValues {
  engine: ModelEngine;
  modelType: ModelType;
  modelName: string;
  modelUid: string;
  upstreamBaseUrl: string;
  upstreamApiKey: string;
  upstreamModel: string;
}

/** The launch request for the form's values: empty optional fields are left out. */
function toLaunch(values: LaunchValues): ModelLaunch {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const uid = optional(values.modelUid);
  const launch: ModelLaunch = { model_name: values.modelName.trim(), model_type: values.modelType, model_engine: values.engine, ...(uid === undefined ? {} : { model_uid: uid }) };
  if (values.engine === 'builtin') return launch;
  const upstreamModel = optional(values.upstreamModel);
  return {
    ...launch,
    upstream_base_url: values.upstreamBaseUrl.trim(),
    // The key is sent as typed (no trimming: it is a secret, not a name).
    ...(values.upstreamApiKey === '' ? {} : { upstream_api_key: values.upstreamApiKey }),
    ...(upstreamModel === undefined ? {} : { upstream_model: upstreamModel }),
  };
}

function LaunchDialog({ preset, families, onClose, onLaunched }: { preset: LaunchPreset | null; families: readonly ModelRegistration[]; onClose(): void; onLaunched(model: Model): Promise<void> }) {
  const form = useForm<LaunchValues>({
    initialValues: {
      engine: 'builtin',
      modelType: preset?.modelType ?? 'LLM',
      modelName: preset?.modelName ?? '',
      modelUid: '',
      upstreamBaseUrl: '',
      upstreamApiKey: '',
      upstreamModel: '',
    },
    validate: {
      modelName: (value, values) => {
        if (value.trim() === '') return values.engine === 'builtin' ? 'Choose a model family' : 'Name the model';
        return modelNamePattern.test(value.trim()) ? null : 'Letters, digits, ".", "_" and "-", starting with a letter or digit';
      },
      modelUid: (value) => (value.trim() === '' || modelUidPattern.test(value.trim()) ? null : 'Letters, digits, ".", "_", "-" and ":", starting with a letter or digit'),
      upstreamBaseUrl: (value, values) => {
        if (values.engine !== 'upstream') return null;
        if (value.trim() === '') return 'The upstream server is needed (e.g. http://127.0.0.1:8000/v1)';
        return /^https?:\/\/\S+$/.test(value.trim()) ? null : 'An http:// or https:// URL';
      },
    },
  });
  const submit = useSubmit(async (values: LaunchValues) => {
    await onLaunched(await client.models.launch(toLaunch(values)));
  });
  const ofType = families.filter((family) => family.model_type === form.values.modelType).map((family) => family.model_name);
  const builtin = form.values.engine === 'builtin';
  const uidDefault = form.values.modelName.trim() === '' ? 'the model name' : form.values.modelName.trim();

  return (
    <FormDialog opened title="Launch model" submitLabel="Launch" size="lg" busy={submit.busy} error={submit.error} onClose={onClose} onSubmit={form.onSubmit((values) => void submit.run(values))}>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="engine-label">
          Engine
        </Text>
        <SegmentedControl
          aria-labelledby="engine-label"
          data={[
            { value: 'builtin', label: 'Built-in' },
            { value: 'upstream', label: 'Upstream server' },
          ]}
          {...form.getInputProps('engine')}
        />
        <Text size="xs" c="dimmed">
          {builtin
            ? 'svc answers itself, from a registered family (deterministic, no weights).'
            : 'svc forwards to an OpenAI-compatible server (vLLM, llama.cpp, Ollama, …).'}
        </Text>
      </Stack>
      <Select
        label="Model type"
        data={modelTypeOptions}
        allowDeselect={false}
        {...form.getInputProps('modelType')}
        onChange={(type) => {
          form.setFieldValue('modelType', (type ?? 'LLM') as ModelType);
          if (builtin) form.setFieldValue('modelName', '');
        }}
      />
      {builtin ? (
        <Select
          label="Model family"
          required
          searchable
          data={ofType}
          nothingFoundMessage={`No ${form.values.modelType} family is registered`}
          openOnFocus={false}
          data-autofocus
          {...form.getInputProps('modelName')}
          value={form.values.modelName === '' ? null : form.values.modelName}
          onChange={(name) => form.setFieldValue('modelName', name ?? '')}
        />
      ) : (
        <Autocomplete label="Model name" description="A registered family, or any name for the upstream's model." required data={ofType} openOnFocus={false} data-autofocus {...form.getInputProps('modelName')} />
      )}
      <TextInput label="Model UID" description={`Optional: how calls name the model (defaults to ${uidDefault}).`} {...form.getInputProps('modelUid')} />
      {!builtin && (
        <>
          <TextInput label="Upstream base URL" required placeholder="http://127.0.0.1:8000/v1" {...form.getInputProps('upstreamBaseUrl')} />
          <PasswordField
            label="Upstream API key"
            description="Optional. Stored encrypted and never shown again: the model list says only whether a key is set."
            autoComplete="new-password"
            {...form.getInputProps('upstreamApiKey')}
          />
          <TextInput label="Upstream model" description="Optional: the name the upstream knows the model by (defaults to the model name)." {...form.getInputProps('upstreamModel')} />
        </>
      )}
    </FormDialog>
  );
}
