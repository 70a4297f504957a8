/**
 * What every error body must be: the contract's shape with a known code, and free of stack
 * traces, file paths, SQL and secrets.
 */
import { errorCodes } from './schemas.js';


const leakPatterns: readonly [string, RegExp][] = [
  ['a stack frame', /\bat\s+\S+\s+\(|\n\s+at\s|\bat\s+(?:file:|node:|\/)/],
  ['a source location', /\.(?:[cm]?js|ts):\d+/],
  ['a file path', /(?:^|[\s"'(=:])\/(?:home|work|tmp|usr|var|root|opt|etc|proc)\/|node_modules|file:\/\//],
  ['SQL', /\bselect\b[\s\S]*\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\w+\s+set\b|\bcreate\s+table\b|no such (?:table|column)|constraint failed/i],
  ['SQLite', /sqlite/i],
  ['a JavaScript error class', /\b(?:TypeError|RangeError|SyntaxError|ReferenceError)\b|"stack"/],
];

/** What `text` gives away that no error body may: stack frames, paths, SQL, or one of `secrets`. */
export function leaks(text: string, secrets: readonly string[]): string[] {
  const found = leakPatterns.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
  for (const secret of secrets) if (secret !== '' && text.includes(secret)) found.push('a secret');
  return found;
}

/** Problems with an error body beyond its schema (which the contract client already checks). */
export function errorBodyProblems(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return ['error body is not a JSON object'];
  const { detail, error } = body as { detail?: unknown; error?: { message?: unknown; code?: unknown; type?: unknown } };
  const problems: string[] = [];
  if (typeof detail !== 'string' || detail === '') problems.push('detail is not a non-empty string');
  if (error === undefined || error === null || typeof error !== 'object') return [...problems, 'error is not an object'];
  if (error.message !== detail) problems.push('error.message differs from detail');
  if (typeof error.code !== 'string' || !errorCodes.has(error.code)) problems.push(`error.code ${JSON.stringify(error.code)} is not in the ErrorCode enum`);
  if (typeof error.type !== 'string') problems.push('error.type is missing');
  return problems;
}
