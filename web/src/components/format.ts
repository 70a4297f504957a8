/** Display formats shared by the pages. */

/** A timestamp as local date and time, or a dash. */
export function formatTime(iso: string | null | undefined, none = '—'): string {
  if (iso === null || iso === undefined) return none;
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
