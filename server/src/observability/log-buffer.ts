/**
 * The server's recent log lines, kept in memory for `GET /v1/cluster/logs`, with every secret
 * redacted before a line is kept (or echoed to stdout): API keys, JWTs, refresh tokens, bearer
 * credentials, secret-named JSON fields, and the exact values of secrets the server knows (its own
 * secrets and upstream API keys).
 */

/** One kept log line. */
export interface LogLine {
  /** ISO 8601 UTC. */
  time: string;
  level: LogLevel;
  message: string;
}

/** pino's level names. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const levelNames: Record<number, LogLevel> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const REDACTED = '[redacted]';

/** Patterns of secrets whatever their value. */
const secretPatterns: readonly [RegExp, string][] = [
  [/sk-svc-[A-Za-z0-9]{8,}/g, `sk-svc-${REDACTED}`],
  [/\bsk-[A-Za-z0-9]{13,}\b/g, `sk-${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [/svc_rt_[A-Za-z0-9_-]+/g, `svc_rt_${REDACTED}`],
  // The user-info of a URL (`http://user:password@host`) is a credential.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s\/?#@"']+@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Basic)\s+[^\s"',]+/gi, `$1 ${REDACTED}`],
  [/("?(?:password|new_password|current_password|secret|token|access_token|refresh_token|api_key|upstream_api_key|authorization|key)"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s,}]+)/gi, `$1"${REDACTED}"`],
];

/** Removes secrets from text. Secrets the server knows are added with {@link LogRedactor.addSecret}. */
export class LogRedactor {
  readonly #known = new Set<string>();

  /** Redacts this exact value wherever it appears from now on (values shorter than 6 characters are ignored). */
  addSecret(value: string): void {
    if (value.length >= 6) this.#known.add(value);
  }

  /** `text` with every known secret and secret-looking token replaced by `[redacted]`. */
  redact(text: string): string {
    let result = text;
    for (const secret of this.#known) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    for (const [pattern, replacement] of secretPatterns) result = result.replace(pattern, replacement);
    return result;
  }
}

/** A ring buffer of the newest log lines. */
export class LogBuffer {
  readonly #capacity: number;
  readonly #lines: LogLine[] = [];
  #next = 0;

  constructor(capacity = 1000) {
    this.#capacity = capacity;
  }

  push(line: LogLine): void {
    if (this.#lines.length < this.#capacity) this.#lines.push(line);
    else this.#lines[this.#next] = line;
    this.#next = (this.#next + 1) % this.#capacity;
  }

  /** The newest `count` lines, oldest first. */
  newest(count: number): LogLine[] {
    const ordered = this.#lines.length < this.#capacity ? this.#lines : [...this.#lines.slice(this.#next), ...this.#lines.slice(0, this.#next)];
    return ordered.slice(Math.max(0, ordered.length - count));
  }
}

/**
 * The destination of the server's logger (pino writes one JSON line per call): redacts, keeps the
 * line in the buffer and, when asked, echoes it to `echo` (stdout for `svc-local`).
 */
export class LogSink {
  readonly buffer: LogBuffer;
  readonly redactor: LogRedactor;
  readonly #echo: { write(text: string): unknown } | null;

  constructor(options: { redactor?: LogRedactor; buffer?: LogBuffer; echo?: { write(text: string): unknown } | null } = {}) {
    this.redactor = options.redactor ?? new LogRedactor();
    this.buffer = options.buffer ?? new LogBuffer();
    this.#echo = options.echo ?? null;
  }

  /** Called by pino with one serialised line. */
  write(raw: string): void {
    let text: string;
    let entry: LogEntry | null = null;
    try {
      entry = redactValue(this.redactor, JSON.parse(raw)) as LogEntry;
      text = JSON.stringify(entry);
    } catch {
      text = this.redactor.redact(raw.trimEnd());
    }
    this.#echo?.write(`${text}\n`);
    this.buffer.push(entry === null ? { time: new Date().toISOString(), level: 'info', message: text } : toLogLine(entry));
  }
}

interface LogEntry {
  time?: number;
  level?: number;
  msg?: unknown;
  err?: { message?: unknown };
}

/** Field names whose values are secrets whatever they look like. */
const secretFieldNames = /^(password|new_password|current_password|secret|token|access_token|refresh_token|api_key|upstream_api_key|authorization|key|cookie)$/i;

/** A copy of a parsed log line with every string redacted and secret-named fields blanked. */
function redactValue(redactor: LogRedactor, value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(redactor, item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, secretFieldNames.test(name) && item !== null && item !== undefined ? REDACTED : redactValue(redactor, item, depth + 1)]),
  );
}

function toLogLine(parsed: LogEntry): LogLine {
  const message = [typeof parsed.msg === 'string' ? parsed.msg : '', typeof parsed.err?.message === 'string' ? parsed.err.message : '']
    .filter((part) => part !== '')
    .join(': ');
  return {
    time: new Date(typeof parsed.time === 'number' ? parsed.time : Date.now()).toISOString(),
    level: levelNames[parsed.level ?? 30] ?? 'info',
    message,
  };
}
