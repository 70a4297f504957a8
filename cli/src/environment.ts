/**
 * The only module of `svc` that reads the environment: `SVC_HOME` (where the login sessions file
 * lives), `SVC_ENDPOINT` and `SVC_API_KEY` (defaults of `--endpoint` and `--api-key`), and the width
 * tables fit (the terminal's, else `COLUMNS`, else 80). The offline
 * tools read theirs through the server's configuration (`loadConfig`), exactly as the server does.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The endpoint used when neither `--endpoint` nor `SVC_ENDPOINT` is given. */
export const DEFAULT_ENDPOINT = 'http://127.0.0.1:9997';

/** What `svc` takes from the environment. */
export interface CliEnvironment {
  /** `SVC_HOME`, default `~/.svc`. */
  home: string;
  /** `SVC_ENDPOINT`. */
  endpoint: string | undefined;
  /** `SVC_API_KEY`. */
  apiKey: string | undefined;
  /** `COLUMNS`, when it is a whole number of at least 20. */
  columns: number | undefined;
}

/** Tables are this wide when stdout is not a terminal and `COLUMNS` is not set. */
export const DEFAULT_WIDTH = 80;

/** Reads the variables `svc` uses; empty values count as unset. */
export function readCliEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): CliEnvironment {
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  return {
    home: resolve(value('SVC_HOME') ?? join(homedir(), '.svc')),
    endpoint: value('SVC_ENDPOINT'),
    apiKey: value('SVC_API_KEY'),
    columns: wholeNumberOfColumns(value('COLUMNS')),
  };
}

function wholeNumberOfColumns(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,4}$/.test(text)) return undefined;
  const columns = Number(text);
  return columns >= 20 ? columns : undefined;
}

/**
 * The width tables fit: the terminal's when stdout is one, else `COLUMNS`, else {@link DEFAULT_WIDTH}.
 */
export function outputWidth(environment: CliEnvironment, stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  if (stdout.isTTY === true && stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  return environment.columns ?? DEFAULT_WIDTH;
}
