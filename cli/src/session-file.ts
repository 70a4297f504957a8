/**
 * The login sessions of `svc`, one per endpoint, in one file: `{SVC_HOME}/cli/sessions.json`, mode
 * 0600 in a 0700 directory. Each write replaces the file atomically (a temporary file renamed into
 * place), so a reader never sees half a file. {@link FileTokenStore} is the SDK's `TokenStore` over
 * one endpoint's entry: the SDK writes refreshed tokens back through it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { StoredSession, TokenStore } from '@svc/sdk';
import { CliError, ExitCode } from './exit-codes.js';

/** A stored session with the name it was opened under. */
export interface EndpointSession extends StoredSession {
  username: string;
}

interface SessionsFileContent {
  version: 1;
  sessions: Record<string, EndpointSession>;
}

/** The path of the sessions file under `home`. */
export function sessionsFilePath(home: string): string {
  return join(home, 'cli', 'sessions.json');
}

/** Reads and writes the sessions file. */
export class SessionFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** The session of `endpoint`, or null. */
  get(endpoint: string): EndpointSession | null {
    return this.#read().sessions[endpoint] ?? null;
  }

  /** Stores (or replaces) the session of `endpoint`. */
  set(endpoint: string, session: EndpointSession): void {
    const content = this.#read();
    content.sessions[endpoint] = session;
    this.#write(content);
  }

  /** Forgets the session of `endpoint`; true when there was one. */
  delete(endpoint: string): boolean {
    const content = this.#read();
    if (!(endpoint in content.sessions)) return false;
    delete content.sessions[endpoint];
    this.#write(content);
    return true;
  }

  #read(): SessionsFileContent {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, sessions: {} };
      throw new CliError(ExitCode.unavailable, `cannot read the sessions file ${this.path}: ${(error as Error).message}`);
    }
    try {
      const parsed = JSON.parse(text) as Partial<SessionsFileContent>;
      if (parsed.version === 1 && typeof parsed.sessions === 'object' && parsed.sessions !== null) return parsed as SessionsFileContent;
    } catch {
      // Reported below.
    }
    throw new CliError(ExitCode.usage, `the sessions file ${this.path} is damaged; delete it and log in again`);
  }

  #write(content: SessionsFileContent): void {
    const directory = dirname(this.path);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    chmodSync(directory, 0o700);
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(content, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new CliError(ExitCode.unavailable, `cannot write the sessions file ${this.path}: ${(error as Error).message}`);
    }
  }
}

/** The SDK's token store over one endpoint's entry of a {@link SessionFile}. */
export class FileTokenStore implements TokenStore {
  readonly #file: SessionFile;
  readonly #endpoint: string;
  readonly #username: string | null;

  /**
   * @param username - the name a session is stored under: the login's; null keeps the stored one's
   *   (a refresh).
   */
  constructor(file: SessionFile, endpoint: string, username: string | null = null) {
    this.#file = file;
    this.#endpoint = endpoint;
    this.#username = username;
  }

  get(): StoredSession | null {
    return this.#file.get(this.#endpoint);
  }

  set(session: StoredSession): void {
    this.#file.set(this.#endpoint, { ...session, username: this.#username ?? this.#file.get(this.#endpoint)?.username ?? '' });
  }

  clear(): void {
    this.#file.delete(this.#endpoint);
  }
}
