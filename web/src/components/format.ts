/** Display formats shared by the pages. */

/** A timestamp as local date and time, or a dash. */
export function formatTime(iso: string | null | undefined, none = '—'): string {
  if (iso === null || iso === undefined) return none;
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A number of seconds in words: `45 s`, `5 min`, `1 h 5 min`, `2 d 3 h`. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  if (seconds < 60) return `${seconds} s`;
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
