/**
 * The "Sign in with …" part of the login page: shown when the server offers single sign-on
 * (`GET /v1/auth/oidc/config`). The button is a plain link: the browser navigates to the server,
 * which redirects to the provider and, after the callback, back to `/` with the session cookie set.
 * A refused sign-in comes back as `/login?sso_error=<code>`, shown here in words.
 */
import { Alert, Button, Divider } from '@mantine/core';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';

const ssoErrorMessages: Readonly<Record<string, string>> = {
  oidc_state_invalid: 'The sign-in expired, was already used or was started in another browser. Try again.',
  oidc_login_failed: 'The identity provider refused the sign-in, or its answer could not be verified. Try again, or ask an administrator.',
  account_disabled: 'This account is disabled in svc. Ask an administrator.',
  oidc_username_conflict: 'A svc account with your username already exists and is not linked to the identity provider. Ask an administrator.',
  oidc_provider_unreachable: 'The identity provider could not be reached. Try again later.',
};

/** The message for the `sso_error` of the current URL, or null. */
function ssoErrorFromUrl(): string | null {
  const code = new URLSearchParams(window.location.search).get('sso_error');
  if (code === null) return null;
  return ssoErrorMessages[code] ?? 'Single sign-on failed. Try again.';
}

export function SsoSignIn() {
  const options = useLoader(() => client.auth.ssoOptions());
  const error = ssoErrorFromUrl();
  const offer = options.data;
  return (
    <>
      {error === null ? null : (
        <Alert color="red" title="Single sign-on failed" role="alert" variant="light">
          {error}
        </Alert>
      )}
      {offer?.enabled === true ? (
        <>
          <Divider label="or" labelPosition="center" />
          <Button component="a" href={offer.login_url ?? '/v1/auth/oidc/login'} variant="default" fullWidth>
            Sign in with {offer.display_name ?? 'single sign-on'}
          </Button>
        </>
      ) : null}
    </>
  );
}
