/**
 * Changing one's own password (`client.auth.changePassword`, which needs the current one). The server
 * ends every session of the account and answers a fresh token pair; the UI revokes that pair at once
 * and starts a new browser session with the new password, so the refresh token again lives only in
 * the HttpOnly cookie and a reload keeps the user logged in.
 */
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { client } from '../api/client.js';
import { useMe, usePasswordMinLength, useSession } from '../auth/session.js';
import { FormDialog } from '../components/FormDialog.js';
import { PasswordField } from '../components/PasswordField.js';
import { passwordValidators } from '../components/password-rules.js';
import { useSubmit } from '../components/use-submit.js';

export function OwnPasswordDialog({ onClose }: { onClose(): void }) {
  const me = useMe();
  const { login } = useSession();
  const minLength = usePasswordMinLength();
  const form = useForm({
    initialValues: { current: '', password: '', confirmation: '' },
    validate: { current: (value) => (value === '' ? 'Enter your current password' : null), ...passwordValidators(minLength) },
  });
  const submit = useSubmit(async (values: typeof form.values) => {
    await client.auth.changePassword({ current_password: values.current, new_password: values.password });
    await client.logout(); // the pair in the answer: its session ends here, the cookie session replaces it
    await login(me.username, values.password);
    notifications.show({ color: 'green', message: 'Password changed. Your other sessions have ended.' });
    onClose();
  });
  return (
    <FormDialog opened title="Change your password" submitLabel="Change password" busy={submit.busy} error={submit.error} onClose={onClose} onSubmit={form.onSubmit((v) => void submit.run(v))}>
      <PasswordField label="Current password" required data-autofocus autoComplete="current-password" {...form.getInputProps('current')} />
      <PasswordField label="New password" description={`At least ${minLength} characters`} required autoComplete="new-password" {...form.getInputProps('password')} />
      <PasswordField label="Confirm new password" required autoComplete="new-password" {...form.getInputProps('confirmation')} />
    </FormDialog>
  );
}
