/**
 * Mantine's `PasswordInput` with `aria-invalid` on the `<input>` itself: Mantine puts it on the
 * wrapping element only, so a screen reader would not hear that the field is in error.
 */
import { PasswordInput, type PasswordInputProps } from '@mantine/core';

export function PasswordField(props: PasswordInputProps) {
  const invalid = props.error !== undefined && props.error !== null && props.error !== false && props.error !== '';
  return <PasswordInput {...props} aria-invalid={invalid || undefined} />;
}
