/**
 * Narrows what a key may do (`permissions` of an API key): every permission its owner holds (the
 * default, `null`), or only the picked ones — still never more than the owner holds at the time of
 * each call. Only permissions the current user holds can be picked (the server's rule; the picker
 * disables the others and says why).
 */
import { Radio, Stack } from '@mantine/core';
import type { Me, Permission } from '@svc/sdk';
import { PermissionPicker } from './PermissionPicker.js';

/** The editor's value: the owner's permissions, or only some. */
export type KeyPermissions = { mode: 'owner' } | { mode: 'only'; permissions: Permission[] };

/** The editor value for a stored key's `permissions`. */
export function toKeyPermissions(stored: readonly Permission[] | null | undefined): KeyPermissions {
  return stored === null || stored === undefined ? { mode: 'owner' } : { mode: 'only', permissions: [...stored] };
}

/** What to send as the key's `permissions` (null: the owner's). */
export function fromKeyPermissions(value: KeyPermissions): Permission[] | null {
  return value.mode === 'owner' ? null : value.permissions;
}

/** Why the value cannot be saved, or null. */
export function keyPermissionsProblem(value: KeyPermissions): string | null {
  return value.mode === 'only' && value.permissions.length === 0 ? 'Pick at least one permission, or let the key use all of its owner’s' : null;
}

/** A short description for the keys table. */
export function describeKeyPermissions(stored: readonly Permission[] | null | undefined): string {
  return stored === null || stored === undefined ? "Owner's" : stored.join(', ');
}

export interface KeyPermissionsEditorProps {
  me: Me;
  value: KeyPermissions;
  onChange(value: KeyPermissions): void;
  error?: string | null;
}

export function KeyPermissionsEditor({ me, value, onChange, error = null }: KeyPermissionsEditorProps) {
  return (
    <Stack gap="sm">
      <Radio.Group
        label="What this key may do"
        description="A key never does more than its owner may at the time of the call."
        value={value.mode}
        error={error}
        onChange={(mode) => onChange(mode === 'owner' ? { mode: 'owner' } : { mode: 'only', permissions: value.mode === 'only' ? value.permissions : [] })}
      >
        <Stack gap={6} mt={6}>
          <Radio value="owner" label="Everything its owner may do" />
          <Radio value="only" label="Only the permissions picked below" />
        </Stack>
      </Radio.Group>
      {value.mode === 'only' && (
        <PermissionPicker me={me} label="Key permissions" value={value.permissions} onChange={(permissions) => onChange({ mode: 'only', permissions })} />
      )}
    </Stack>
  );
}
