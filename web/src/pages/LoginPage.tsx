/**
 * Login: starts a browser session (`client.startBrowserSession`); the server's refusal is shown in
 * words. Beside the password form, "Sign in with …" when the server offers single sign-on.
 */
import { Button, Stack, TextInput } from '@mantine/core';
import { PasswordField } from '../components/PasswordField.js';
import { useForm } from '@mantine/form';
import { useLocation } from 'wouter';
import { useSession } from '../auth/session.js';
import { AuthCard } from '../components/AuthCard.js';
import { ErrorAlert } from '../components/ErrorAlert.js';
import { useSubmit } from '../components/use-submit.js';
import { SsoSignIn } from './SsoSignIn.js';
import { usePageTitle } from '../layout/use-page-title.js';

export function LoginPage() {
  const { login, suggestedUsername } = useSession();
  const [, navigate] = useLocation();
  usePageTitle('Log in');
  const form = useForm({
    // Right after setup, the new administrator's name is filled in and the password has the focus.
    initialValues: { username: suggestedUsername, password: '' },
    validate: {
      username: (value) => (value.trim() === '' ? 'Enter your username' : null),
      password: (value) => (value === '' ? 'Enter your password' : null),
    },
  });
  const submit = useSubmit(async (values: typeof form.values) => {
    await login(values.username.trim(), values.password);
    navigate('/', { replace: true });
  });
  return (
    <AuthCard title="Log in to svc" description="Use your svc account.">
      <form onSubmit={form.onSubmit((values) => void submit.run(values))} noValidate>
        <Stack>
          <TextInput label="Username" autoComplete="username" required autoFocus={suggestedUsername === ''} {...form.getInputProps('username')} />
          <PasswordField label="Password" autoComplete="current-password" required autoFocus={suggestedUsername !== ''} {...form.getInputProps('password')} />
          <ErrorAlert error={submit.error} title="Login failed" />
          <Button type="submit" loading={submit.busy} fullWidth>
            Log in
          </Button>
          <SsoSignIn />
        </Stack>
      </form>
    </AuthCard>
  );
}
