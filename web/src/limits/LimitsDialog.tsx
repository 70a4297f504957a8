/**
 * "Limits of …": edits the usage limits of one key or user (none of its own, or the limits set
 * here), checks them as the contract does, and saves them with `onSave`. The server's refusal (a
 * key's limit above its owner's, naming the field) is shown in words and nothing is stored.
 */
import type { UsageLimits } from '@svc/sdk';
import { useState } from 'react';
import { FormDialog } from '../components/FormDialog.js';
import { useSubmit } from '../components/use-submit.js';
import { draftOf } from './limits-draft.js';
import { LimitsEditor, limitsChoiceProblems, limitsToSend, type LimitsChoice, type LimitsMode } from './LimitsEditor.js';

export interface LimitsDialogProps {
  title: string;
  limits: UsageLimits | null | undefined;
  modes: Partial<Record<LimitsMode, string>>;
  explanation: Partial<Record<LimitsMode, string>>;
  onSave(limits: UsageLimits | null): Promise<void>;
  onClose(): void;
}

/** True when `limits` sets anything. */
function setsAny(limits: UsageLimits | null | undefined): boolean {
  if (limits === null || limits === undefined) return false;
  return Object.values(limits).some((value) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0));
}

export function LimitsDialog({ title, limits, modes, explanation, onSave, onClose }: LimitsDialogProps) {
  const [choice, setChoice] = useState<LimitsChoice>({ mode: setsAny(limits) ? 'custom' : 'none', draft: draftOf(limits) });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = useSubmit(async () => {
    await onSave(limitsToSend(choice) ?? null);
    onClose();
  });
  return (
    <FormDialog
      opened
      title={title}
      submitLabel="Save limits"
      size="xl"
      busy={submit.busy}
      error={submit.error}
      onClose={onClose}
      onSubmit={(event) => {
        event.preventDefault();
        const found = limitsChoiceProblems(choice);
        setErrors(found);
        if (Object.keys(found).length === 0) void submit.run();
      }}
    >
      <LimitsEditor
        value={choice}
        onChange={(next) => {
          setChoice(next);
          setErrors({});
        }}
        errors={errors}
        modes={modes}
        explanation={explanation}
      />
    </FormDialog>
  );
}
