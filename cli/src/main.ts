/**
 * Runs a tool's main function so that every failure ends as one line on stderr (`<tool>: <message>`)
 * and a documented exit code: never a stack trace.
 */
import { CliError, ExitCode, type ExitCodeValue } from './exit-codes.js';

/** Turns any thrown value into a message and an exit code. */
export type ErrorDescriber = (error: unknown) => { message: string; exitCode: ExitCodeValue };

/** The fallback describer: {@link CliError}s keep their code, anything else is exit code 5. */
export function describeLocalError(error: unknown): { message: string; exitCode: ExitCodeValue } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  const message = error instanceof Error ? error.message : String(error);
  return { message: oneLine(message), exitCode: ExitCode.unavailable };
}

/** Collapses a message to one line. */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * Awaits `work`; on failure writes `<tool>: <message>` to stderr and exits with the error's code.
 *
 * @example
 * await runMain('svc', () => program.parseAsync(argv), describeError);
 */
export async function runMain(tool: string, work: () => Promise<unknown>, describe: ErrorDescriber = describeLocalError): Promise<void> {
  try {
    await work();
    // Nothing is left to wait for: open keep-alive sockets or a stdin reader must not hold the process.
    process.exit(ExitCode.ok);
  } catch (error) {
    const { message, exitCode } = describe(error);
    process.stderr.write(`${tool}: ${oneLine(message)}\n`);
    process.exit(exitCode);
  }
}
