/**
 * Reads how long a server asks a client to wait: `retry-after-ms` (milliseconds, as OpenAI sends it)
 * or `Retry-After` (seconds, or an HTTP date).
 */

/** The wait the server asked for, in milliseconds, if any. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const millisecondsHeader = headers.get('retry-after-ms')?.trim() ?? '';
  const milliseconds = Number(millisecondsHeader);
  if (millisecondsHeader !== '' && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
