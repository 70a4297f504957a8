/**
 * First run: creates the first administrator (`client.setup.create`), then sends the user to the
 * login page. The minimum password length comes from the setup status.
 */
import { Button, Stack, TextInput } from '@mantine/core';
import { PasswordField } from '../components/PasswordField.js';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { client } from '../api/client.js';
import { useSession } from '../auth/session.js';
import { AuthCard } from '../components/AuthCard.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { passwordValidators } from '../components/password-rules.js';
import { useSubmit } from '../components/use-submit.js';
import { usePageTitle } from '../layout/use-page-title.js';

export function SetupPage({ minLength }: { minLength: number }) {
  const { reload, suggestUsername } = useSession();
  usePageTitle('Set up');
  const form = useForm({
    initialValues: { username: '', password: '', confirmation: '' },
    validate: { username: (value) => (value.trim() === '' ? 'Choose a username' : null), ...passwordValidators(minLength) },
  });
  const submit = useSubmit(async (values: typeof form.values) => {
    await client.setup.createAdmin({ username: values.username.trim(), password: values.password });
    suggestUsername(values.username.trim()); // the login page starts with it
    notifications.show({ color: 'green', message: 'Administrator created. Log in with it.' });
    await reload(); // no account is missing any more: the app moves on to the login page
  });
  return (
    <AuthCard title="Set up svc" description="No account exists yet. Create the first administrator.">
      <form onSubmit={form.onSubmit((values) => void submit.run(values))} noValidate>
        <Stack>
          <TextInput label="Username" autoComplete="username" required autoFocus {...form.getInputProps('username')} />
          <PasswordField
            label="Password"
            description={`At least ${minLength} characters; a long passphrase is best`}
            autoComplete="new-password"
            required
            {...form.getInputProps('password')}
          />
          <PasswordField label="Confirm password" autoComplete="new-password" required {...form.getInputProps('confirmation')} />
          <ErrorAlert error={submit.error} title="Setup failed" />
          <Button type="submit" loading={submit.busy} fullWidth>
            Create administrator
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
