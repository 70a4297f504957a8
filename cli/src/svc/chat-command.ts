/**
 * `svc chat <model> [message]` (`models:read`): try a running model from the terminal, its answer
 * streamed as it is generated. The message is the argument; else all of standard input when it is
 * not a terminal (`echo Hello | svc chat my-echo`); else a conversation at a `> ` prompt, each answer
 * added to the history the next question is sent with, until Ctrl-D (or Ctrl-C).
 */
import { createInterface } from 'node:readline';
import type { ChatCompletionRequest, ChatMessage, Client } from '@svc/sdk';
import { Command, InvalidArgumentError } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { readAllStdin } from '../prompt.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';

interface ChatOptions extends ConnectionOptions {
  system?: string;
  maxTokens?: number;
}

/** `--max-tokens`: a whole number of at least 1. */
function positiveWholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('use a whole number of at least 1');
  return Number(value);
}

/** Adds `svc chat` to `program`. */
export function registerChatCommand(program: Command): void {
  withConnectionOptions(program.command('chat'))
    .description('Chat with a running model, the answer streamed (models:read); the message is the argument, else stdin when piped, else a prompt')
    .argument('<model-uid>', 'the running model (see svc list)')
    .argument('[message]', 'what to send (default: all of stdin when it is not a terminal, else a conversation at a prompt)')
    .option('--system <text>', 'a system message sent first')
    .option('--max-tokens <n>', 'the most tokens an answer may have', positiveWholeNumber)
    .action(async (model: string, message: string | undefined, options: ChatOptions) => {
      const context = createContext(options);
      const history: ChatMessage[] = options.system === undefined ? [] : [{ role: 'system', content: options.system }];
      const request = (messages: ChatMessage[]): ChatCompletionRequest => ({
        model,
        messages,
        ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
      });
      if (message === undefined && process.stdin.isTTY === true && !context.output.json) {
        return converse(context.client, history, request);
      }
      const text = message ?? (await readAllStdin()).replace(/\r?\n$/, '');
      if (text.trim() === '') throw new CliError(ExitCode.usage, 'nothing to send: give a message (svc chat <model-uid> "Hello") or pipe it to stdin');
      const messages: ChatMessage[] = [...history, { role: 'user', content: text }];
      if (context.output.json) return context.output.data(await context.client.inference.chatCompletion(request(messages)));
      await streamAnswer(context.client, request(messages));
    });
}

/**
 * Streams one answer to stdout as it arrives, ending it with a newline; returns its text. If the
 * stream fails part-way, the line is ended before the error is reported.
 */
async function streamAnswer(client: Client, body: ChatCompletionRequest): Promise<string> {
  let answer = '';
  try {
    for await (const chunk of client.inference.streamChatCompletion(body)) {
      const text = chunk.choices[0]?.delta.content ?? '';
      if (text === '') continue;
      process.stdout.write(text);
      answer += text;
    }
  } finally {
    if (answer !== '' && !answer.endsWith('\n')) process.stdout.write('\n');
  }
  return answer;
}

/** A conversation at a terminal: `> ` on stderr, one question per line, until Ctrl-D; Ctrl-C exits 130. */
async function converse(client: Client, history: ChatMessage[], request: (messages: ChatMessage[]) => ChatCompletionRequest): Promise<void> {
  const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true, prompt: '> ' });
  lines.on('SIGINT', () => {
    process.stderr.write('\n');
    process.exit(ExitCode.interrupted);
  });
  process.stderr.write('Chatting; Ctrl-D ends.\n');
  lines.prompt();
  try {
    for await (const line of lines) {
      if (line.trim() !== '') {
        history.push({ role: 'user', content: line });
        history.push({ role: 'assistant', content: await streamAnswer(client, request(history)) });
      }
      lines.prompt();
    }
  } finally {
    lines.close();
  }
  process.stderr.write('\n');
}
