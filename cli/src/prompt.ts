/**
 * Password prompts. On a terminal the prompt goes to stderr and nothing typed is echoed (raw mode;
 * Backspace erases, Ctrl-C interrupts with exit code 130). Without a terminal (a pipe, a file) each
 * prompt reads the next line of standard input instead, and confirmations are not asked.
 */
import { createInterface } from 'node:readline';
import { CliError, ExitCode } from './exit-codes.js';

let stdinLines: { next(): Promise<string | null> } | undefined;

/** The lines of a non-terminal stdin, read one at a time across prompts. */
function pipedLines(): { next(): Promise<string | null> } {
  if (stdinLines !== undefined) return stdinLines;
  const buffered: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  const reader = createInterface({ input: process.stdin, terminal: false });
  reader.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter === undefined) buffered.push(line);
    else waiter(line);
  });
  reader.on('close', () => {
    ended = true;
    for (const waiter of waiting.splice(0)) waiter(null);
  });
  stdinLines = {
    next() {
      const line = buffered.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
  return stdinLines;
}

/** True when prompts can hide what is typed (stdin is a terminal). */
export function canPromptInteractively(): boolean {
  return process.stdin.isTTY === true;
}

/**
 * Asks for a secret. On a terminal `question` is shown on stderr and the answer is not echoed; else
 * the next line of stdin is the answer.
 *
 * @throws {CliError} when stdin ends first (exit 1) or the user presses Ctrl-C (exit 130).
 */
export async function promptSecret(question: string): Promise<string> {
  if (!canPromptInteractively()) {
    const line = await pipedLines().next();
    if (line === null) throw new CliError(ExitCode.usage, `${question.replace(/:\s*$/, '')}: nothing on standard input (pass the option, or type it at a terminal)`);
    return line;
  }
  return readHidden(question);
}

/** Asks a yes/no question on a terminal; false unless the answer starts with y. */
export async function confirm(question: string): Promise<boolean> {
  const reader = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => reader.question(`${question} [y/N] `, resolve));
    return /^y/i.test(answer.trim());
  } finally {
    reader.close();
  }
}

/**
 * Asks for a new password; on a terminal it is asked twice and must match.
 *
 * @throws {CliError} (exit 1) when the two answers differ.
 */
export async function promptNewPassword(question = 'New password: '): Promise<string> {
  const first = await promptSecret(question);
  if (!canPromptInteractively()) return first;
  const second = await promptSecret('Repeat the new password: ');
  if (first !== second) throw new CliError(ExitCode.usage, 'the two passwords do not match; nothing was changed');
  return first;
}

function readHidden(question: string): Promise<string> {
  const input = process.stdin;
  // Echo goes off before the prompt shows, so nothing typed after it can be echoed.
  input.setRawMode(true);
  process.stderr.write(question);
  input.resume();
  input.setEncoding('utf8');
  let answer = '';
  return new Promise((resolve, reject) => {
    const finish = (error: CliError | null) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error === null) resolve(answer);
      else reject(error);
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') return finish(null);
        if (character === '\u0003') return finish(new CliError(ExitCode.interrupted, 'interrupted'));
        if (character === '\u0004') {
          if (answer === '') return finish(new CliError(ExitCode.usage, 'no password given'));
          return finish(null);
        }
        if (character === '\u007f' || character === '\b') {
          answer = [...answer].slice(0, -1).join('');
          continue;
        }
        if (character < ' ') continue;
        answer += character;
      }
    };
    input.on('data', onData);
  });
}

/** All of standard input, as text (for a stdin that is not a terminal). */
export async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
