/**
 * Picks permissions, grouped (models, keys, users, …). A permission the current user does not hold
 * cannot be granted (the server refuses it), so its box is disabled and says why.
 */
import { Checkbox, Fieldset, SimpleGrid, Text } from '@mantine/core';
import type { Me, Permission } from '@svc/sdk';
import { permissionDescriptions, permissionGroups, whyNotGrant } from '../auth/permissions.js';

export interface PermissionPickerProps {
  me: Me;
  value: Permission[];
  onChange(value: Permission[]): void;
  label?: string;
}

export function PermissionPicker({ me, value, onChange, label = 'Permissions' }: PermissionPickerProps) {
  const toggle = (permission: Permission, checked: boolean) =>
    onChange(checked ? [...value, permission] : value.filter((held) => held !== permission));
  return (
    <Fieldset legend={label} variant="unstyled">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {permissionGroups.map((group) => (
          <Fieldset key={group.label} legend={group.label} p="xs">
            {group.permissions.map((permission) => {
              const refusal = whyNotGrant(me, permission);
              return (
                <Checkbox
                  key={permission}
                  mb={6}
                  label={permission}
                  description={refusal ?? permissionDescriptions[permission]}
                  checked={value.includes(permission)}
                  disabled={refusal !== null && !value.includes(permission)}
                  onChange={(event) => toggle(permission, event.currentTarget.checked)}
                />
              );
            })}
          </Fieldset>
        ))}
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt="xs">
        admin holds every other permission.
      </Text>
    </Fieldset>
  );
}
