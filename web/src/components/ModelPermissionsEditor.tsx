/**
 * Edits a key's model restrictions (`model_permissions`): every model, or only the listed ones
 * (a model UID — picked from the running models or typed, for one not running yet — or a kind of
 * model). Entries are OR-ed; an empty "only these" list allows no model.
 */
import { ActionIcon, Autocomplete, Button, Group, Radio, Select, Stack, Text } from '@mantine/core';
import type { Model, ModelPermission, ModelType } from '@svc/sdk';
import { modelTypeOptions } from '../models/model-types.js';

/** One editable row: a model UID or a kind of model. */
export type Restriction = { permission_type: 'model_id'; permission_value: string } | { permission_type: 'model_type'; permission_value: ModelType };

/** The editor's value: every model, or only some. */
export type ModelAccess = { mode: 'all' } | { mode: 'only'; restrictions: Restriction[] };

/** The editor value for a stored list. */
export function toModelAccess(list: readonly ModelPermission[]): ModelAccess {
  if (list.some((entry) => entry.permission_type === 'all')) return { mode: 'all' };
  return { mode: 'only', restrictions: list.filter((entry): entry is Restriction => entry.permission_type !== 'all') };
}

/** The stored list for an editor value (blank model UIDs are dropped). */
export function toModelPermissions(access: ModelAccess): ModelPermission[] {
  if (access.mode === 'all') return [{ permission_type: 'all', permission_value: null }];
  return access.restrictions
    .map((r) => (r.permission_type === 'model_id' ? { ...r, permission_value: r.permission_value.trim() } : r))
    .filter((r) => r.permission_value !== '');
}

/** A short description of a stored list, for the table. */
export function describeModelPermissions(list: readonly ModelPermission[]): string {
  const access = toModelAccess(list);
  if (access.mode === 'all') return 'All models';
  if (access.restrictions.length === 0) return 'No model';
  return access.restrictions.map((r) => (r.permission_type === 'model_id' ? r.permission_value : `any ${r.permission_value}`)).join(', ');
}

export interface ModelPermissionsEditorProps {
  value: ModelAccess;
  onChange(value: ModelAccess): void;
  /** The running models to pick a UID from (any other UID can still be typed). */
  runningModels?: readonly Model[];
}

export function ModelPermissionsEditor({ value, onChange, runningModels = [] }: ModelPermissionsEditorProps) {
  const uidOptions = runningModels.map((model) => ({ value: model.model_uid, label: model.model_uid }));
  const restrictions = value.mode === 'only' ? value.restrictions : [];
  const setRow = (index: number, row: Restriction) => onChange({ mode: 'only', restrictions: restrictions.map((r, i) => (i === index ? row : r)) });
  return (
    <Stack gap="sm">
      <Radio.Group
        label="Models this key may use"
        value={value.mode}
        onChange={(mode) => onChange(mode === 'all' ? { mode: 'all' } : { mode: 'only', restrictions: [{ permission_type: 'model_id', permission_value: '' }] })}
      >
        <Group mt={6}>
          <Radio value="all" label="All models" />
          <Radio value="only" label="Only these" />
        </Group>
      </Radio.Group>
      {value.mode === 'only' && (
        <Stack gap="xs">
          {restrictions.map((row, index) => (
            <Group key={index} gap="xs" align="flex-end" wrap="nowrap">
              <Select
                label="Kind"
                w={150}
                data={[
                  { value: 'model_id', label: 'Model UID' },
                  { value: 'model_type', label: 'Model type' },
                ]}
                value={row.permission_type}
                allowDeselect={false}
                onChange={(kind) =>
                  setRow(index, kind === 'model_type' ? { permission_type: 'model_type', permission_value: 'LLM' } : { permission_type: 'model_id', permission_value: '' })
                }
              />
              {row.permission_type === 'model_id' ? (
                <Autocomplete
                  label="Model UID"
                  style={{ flex: 1 }}
                  value={row.permission_value}
                  data={uidOptions}
                  placeholder={uidOptions.length === 0 ? 'e.g. qwen2.5-instruct' : 'Pick a running model or type a UID'}
                  onChange={(uid) => setRow(index, { permission_type: 'model_id', permission_value: uid })}
                />
              ) : (
                <Select
                  label="Model type"
                  style={{ flex: 1 }}
                  data={modelTypeOptions}
                  value={row.permission_value}
                  allowDeselect={false}
                  onChange={(type) => setRow(index, { permission_type: 'model_type', permission_value: (type ?? 'LLM') as ModelType })}
                />
              )}
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Remove restriction ${index + 1}`}
                onClick={() => onChange({ mode: 'only', restrictions: restrictions.filter((_, i) => i !== index) })}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button
              size="xs"
              variant="subtle"
              onClick={() => onChange({ mode: 'only', restrictions: [...restrictions, { permission_type: 'model_id', permission_value: '' }] })}
            >
              Add a model
            </Button>
          </Group>
          {toModelPermissions(value).length === 0 && (
            <Text size="sm" c="orange">
              An empty list allows no model at all.
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
