/**
 * The exit codes of every svc command-line tool (`svc`, `svc-reset-auth-password`,
 * `svc-migrate-auth`), and the one error type that carries a code to the process exit. Documented in
 * `docs/cli.md`.
 */

/** How a command ended. */
export const ExitCode = {
  /** Done. */
  ok: 0,
  /** A usage error or invalid input: a bad option, a refused password, an invalid legacy file. */
  usage: 1,
  /** Not authenticated: not logged in, a session that ended, a refused API key or password. */
  authentication: 2,
  /** Forbidden: the caller lacks a permission, or a rule forbids the change. */
  forbidden: 3,
  /** Not found, or a conflict with what exists (a taken username, the last administrator). */
  notFoundOrConflict: 4,
  /** The server failed or could not be reached, or the database could not be used. */
  unavailable: 5,
  /** A check found damage: `svc audit verify` on a broken audit chain. */
  integrity: 6,
  /** Interrupted at a prompt (Ctrl-C). */
  interrupted: 130,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error whose message is one readable line for the user and whose code ends the process. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;

  constructor(exitCode: ExitCodeValue, message: string) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
