/**
 * The options every `svc` command takes (`-e/--endpoint`, `--api-key/-ak`, `--json`) and what a
 * command's action gets from them: a connected SDK `Client`, the sessions file and the output.
 */
import { AuthenticationError, Client, MemoryTokenStore } from '@svc/sdk';
import type { Command } from 'commander';
import { DEFAULT_ENDPOINT, outputWidth, readCliEnvironment } from '../environment.js';
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

/** The attribute names of the connection options, as commander stores them. */
export const connectionOptionNames = ['endpoint', 'apiKey', 'json'] as const;

/** Adds the options every command takes (and the program itself, before any command). */
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

/** How a command authenticates, beyond its options. */
export interface ContextMode {
  /**
   * Use the endpoint's login session even when an API key is configured (`svc login`, `svc
   * logout`); with `loginAs`, a new session is stored under that username.
   */
  session?: { loginAs: string | null };
}

/**
 * Builds the context of a command from its options. With an API key (`--api-key`, else
 * `SVC_API_KEY`) every call sends the key and the stored session is left alone; without one, calls
 * use the endpoint's stored login session, whose refreshed tokens are written back to the file.
 */
export function createContext(options: ConnectionOptions, mode: ContextMode = {}): CommandContext {
  const environment = readCliEnvironment();
  const endpoint = normalizeEndpoint(options.endpoint ?? environment.endpoint ?? DEFAULT_ENDPOINT);
  const apiKey = options.apiKey ?? environment.apiKey;
  const sessions = new SessionFile(sessionsFilePath(environment.home));
  const useKey = apiKey !== undefined && mode.session === undefined;
  setErrorContext({ endpoint, usedApiKey: useKey });
  const client = useKey
    ? new Client({ baseUrl: endpoint, apiKey, tokenStore: new MemoryTokenStore() })
    : // No apiKey option: the SDK would fall back to SVC_API_KEY, which is not to be used here.
      new Client({ baseUrl: endpoint, apiKey: noApiKey, tokenStore: new FileTokenStore(sessions, endpoint, mode.session?.loginAs ?? null) });
  return { endpoint, client, output: new Output(options.json === true, outputWidth(environment)), sessions, apiKey };
}

/** Asked for only when no session exists: the call is not sent, and the user is told to log in. */
function noApiKey(): never {
  throw new AuthenticationError(401, undefined, new Headers(), 'Not logged in to this endpoint');
}
