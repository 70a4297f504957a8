/**
 * The usage-limits part of a key's or user's form: whether the key or user gets the server's
 * default (a new key only), no limits of its own, or the limits set here — requests and tokens per
 * minute, requests at once, a token budget per UTC day or month, and per-model rates. Controlled by
 * the dialog that holds it (value, onChange, the errors of its last check).
 */
import { Button, Fieldset, Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useId } from '@mantine/hooks';
import type { UsageLimits } from '@svc/sdk';
import { emptyModelLimit, limitsOf, limitsProblems, type LimitsDraft, type ModelLimitDraft, type NumberField } from './limits-draft.js';

/** Where the limits come from. */
export type LimitsMode = 'default' | 'none' | 'custom';

/** The editor's value. */
export interface LimitsChoice {
  mode: LimitsMode;
  draft: LimitsDraft;
}

/** The field errors of `choice` (none unless limits are set here; then at least one is needed). */
export function limitsChoiceProblems(choice: LimitsChoice): Record<string, string> {
  if (choice.mode !== 'custom') return {};
  const problems = limitsProblems(choice.draft);
  if (Object.keys(problems).length === 0 && Object.keys(limitsOf(choice.draft)).length === 0) {
    problems['requestsPerMinute'] = 'Set at least one limit, or choose no limits';
  }
  return problems;
}

/** What to send as `limits`: undefined for the server's default, null for none, else the limits. */
export function limitsToSend(choice: LimitsChoice): UsageLimits | null | undefined {
  if (choice.mode === 'default') return undefined;
  if (choice.mode === 'none') return null;
  return limitsOf(choice.draft);
}

export interface LimitsEditorProps {
  value: LimitsChoice;
  onChange(value: LimitsChoice): void;
  errors: Record<string, string>;
  /** The choices offered, each with its label (e.g. `{ none: "No limits of its own", custom: "Set limits" }`). */
  modes: Partial<Record<LimitsMode, string>>;
  /** What the chosen mode means, under the choice. */
  explanation: Partial<Record<LimitsMode, string>>;
}

const numberProps = { min: 1, step: 1, allowDecimal: false, allowNegative: false, thousandSeparator: ',' } as const;

export function LimitsEditor({ value, onChange, errors, modes, explanation }: LimitsEditorProps) {
  const labelId = useId();
  const draft = value.draft;
  const update = (changes: Partial<LimitsDraft>) => onChange({ ...value, draft: { ...draft, ...changes } });
  const updateModel = (index: number, changes: Partial<ModelLimitDraft>) => update({ models: draft.models.map((entry, at) => (at === index ? { ...entry, ...changes } : entry)) });
  const numberField = (label: string, name: 'requestsPerMinute' | 'tokensPerMinute' | 'maxConcurrentRequests' | 'budgetTokens', description?: string) => (
    <NumberInput
      label={label}
      placeholder="No limit"
      {...(description === undefined ? {} : { description })}
      {...numberProps}
      value={draft[name]}
      onChange={(next: NumberField) => update({ [name]: next })}
      error={errors[name]}
    />
  );
  return (
    <Fieldset legend="Usage limits">
      <Stack gap="sm">
        <Stack gap={4}>
          <Text size="sm" fw={500} id={labelId}>
            Limits of its own
          </Text>
          <SegmentedControl
            aria-labelledby={labelId}
            data={(Object.entries(modes) as [LimitsMode, string][]).map(([mode, label]) => ({ value: mode, label }))}
            value={value.mode}
            onChange={(mode) => onChange({ ...value, mode: mode as LimitsMode })}
          />
          {explanation[value.mode] !== undefined && (
            <Text size="xs" c="dimmed">
              {explanation[value.mode]}
            </Text>
          )}
        </Stack>
        {value.mode === 'custom' && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {numberField('Requests per minute', 'requestsPerMinute')}
              {numberField('Tokens per minute', 'tokensPerMinute', 'Prompt + completion')}
              {numberField('Requests at once', 'maxConcurrentRequests', 'A stream counts until it ends')}
              <Group gap="xs" align="flex-start" wrap="nowrap">
                {numberField('Token budget', 'budgetTokens', 'Per UTC day or calendar month')}
                <Select
                  label="Budget period"
                  w={120}
                  data={[
                    { value: 'day', label: 'Per day' },
                    { value: 'month', label: 'Per month' },
                  ]}
                  allowDeselect={false}
                  value={draft.budgetPeriod}
                  onChange={(period) => update({ budgetPeriod: period === 'day' ? 'day' : 'month' })}
                />
              </Group>
            </SimpleGrid>
            <Stack gap="xs">
              <Text size="sm" fw={500}>
                Per model
              </Text>
              {draft.models.length === 0 && (
                <Text size="xs" c="dimmed">
                  No per-model limit: every model shares the limits above.
                </Text>
              )}
              {draft.models.map((entry, index) => (
                <Group key={index} gap="xs" align="flex-start" wrap="wrap">
                  <TextInput
                    w={190}
                    label={`Model ${index + 1}`}
                    placeholder="The model's name in calls"
                    value={entry.model}
                    onChange={(event) => updateModel(index, { model: event.currentTarget.value })}
                    error={errors[`models.${index}.model`]}
                  />
                  <NumberInput
                    label="Requests per minute"
                    aria-label={`Requests per minute, model ${index + 1}`}
                    placeholder="No limit"
                    w={160}
                    {...numberProps}
                    value={entry.requestsPerMinute}
                    onChange={(next: NumberField) => updateModel(index, { requestsPerMinute: next })}
                    error={errors[`models.${index}.requestsPerMinute`]}
                  />
                  <NumberInput
                    label="Tokens per minute"
                    aria-label={`Tokens per minute, model ${index + 1}`}
                    placeholder="No limit"
                    w={160}
                    {...numberProps}
                    value={entry.tokensPerMinute}
                    onChange={(next: NumberField) => updateModel(index, { tokensPerMinute: next })}
                    error={errors[`models.${index}.tokensPerMinute`]}
                  />
                  <Button
                    variant="subtle"
                    color="red"
                    mt={24}
                    px="xs"
                    aria-label={`Remove model ${index + 1}`}
                    onClick={() => update({ models: draft.models.filter((_, at) => at !== index) })}
                  >
                    Remove
                  </Button>
                </Group>
              ))}
              <Group>
                <Button variant="light" size="xs" onClick={() => update({ models: [...draft.models, { ...emptyModelLimit }] })} disabled={draft.models.length >= 64}>
                  Add a model limit
                </Button>
              </Group>
              {errors['models'] !== undefined && (
                <Text size="sm" c="red.9" role="alert">
                  {errors['models']}
                </Text>
              )}
            </Stack>
          </>
        )}
      </Stack>
    </Fieldset>
  );
}
