/**
 * Client-side checks of a new password and its confirmation, mirroring the server's length rule
 * (code points, the minimum from the setup status). The server still decides: a common password is
 * refused there, and its reason is shown.
 */

/** Counts Unicode code points, as the server does. */
export function codePoints(text: string): number {
  return [...text].length;
}

/** Validators for a `useForm` with `password` and `confirmation` fields. */
export function passwordValidators(minLength: number) {
  return {
    password: (value: string) => (codePoints(value) < minLength ? `Use at least ${minLength} characters` : null),
    confirmation: (value: string, values: { password: string }) => (value !== values.password ? 'The passwords do not match' : null),
  };
}
