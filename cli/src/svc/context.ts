/**
 * The options every `svc` command takes (`-e/--endpoint`, `--api-key/-ak`, `--json`) and what a
 * command's action gets from them: a connected SDK `Client`, the sessions file and the output.
 */
import { Client, MemoryTokenStore } from '@svc/sdk';
import type { Command } from 'commander';
import { DEFAULT_ENDPOINT, readCliEnvironment } from '../environment.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { Output } from '../output.js';
import { FileTokenStore, SessionFile, sessionsFilePath } from '../session-file.js';
import { setErrorContext } from './describe-error.js';

/** The parsed connection options. */
export interface ConnectionOptions {
  endpoint?: string;
  apiKey?: string;
  json?: boolean;
}

/** Adds the options every command takes. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('-e, --endpoint <url>', `the svc server (default: $SVC_ENDPOINT, else ${DEFAULT_ENDPOINT})`)
    .option('--api-key <key>', 'an API key; short form -ak (default: $SVC_API_KEY); when given, a login session is not used')
    .option('--json', 'print JSON for scripts instead of tables');
}

/** What a command's action works with. */
export interface CommandContext {
  /** The normalised endpoint, e.g. `http://127.0.0.1:9997`. */
  endpoint: string;
  client: Client;
  output: Output;
  sessions: SessionFile;
  /** The API key in use, when one is. */
  apiKey: string | undefined;
}

/** Normalises an endpoint URL (scheme and host lower case, no trailing slash) or refuses it. */
export function normalizeEndpoint(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(ExitCode.usage, `--endpoint ${JSON.stringify(value)} is not a URL; use e.g. ${DEFAULT_ENDPOINT}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(ExitCode.usage, `--endpoint ${JSON.stringify(value)} must start with http:// or https://`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Builds the context of a command from its options. With an API key (`--api-key`, else
 * `SVC_API_KEY`) every call sends the key and the stored session is left alone; without one, calls
 * use the endpoint's stored login session, whose refreshed tokens are written back to the file.
 *
 * @param loginUsername - set by `svc login`: the name a new session is stored under.
 */
export function createContext(options: ConnectionOptions, loginUsername: string | null = null): CommandContext {
  const environment = readCliEnvironment();
  const endpoint = normalizeEndpoint(options.endpoint ?? environment.endpoint ?? DEFAULT_ENDPOINT);
  const apiKey = options.apiKey ?? environment.apiKey;
  const sessions = new SessionFile(sessionsFilePath(environment.home));
  setErrorContext({ endpoint, usedApiKey: apiKey !== undefined && loginUsername === null });
  const client =
    apiKey !== undefined && loginUsername === null
      ? new Client({ baseUrl: endpoint, apiKey, tokenStore: new MemoryTokenStore() })
      : // No apiKey: the environment holds none either (it would have been used above).
        new Client({ baseUrl: endpoint, tokenStore: new FileTokenStore(sessions, endpoint, loginUsername) });
  return { endpoint, client, output: new Output(options.json === true), sessions, apiKey };
}
