/**
 * Parsers of option values shared by the `svc` commands. Each refuses a bad value with commander's
 * `InvalidArgumentError` (exit code 1, with the option named).
 */
import type { PermissionInput } from '@svc/sdk';
import { InvalidArgumentError } from 'commander';

/**
 * A permission list: names separated by commas (or spaces); `none` (or an empty value) is the empty
 * list. The server checks the names.
 */
export function parsePermissionList(value: string): PermissionInput[] {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'none') return [];
  return trimmed.split(/[\s,]+/).filter((name) => name !== '') as PermissionInput[];
}

/** An ISO 8601 date-time (or a date) in the future-or-past; `never` is null. */
export function parseExpiry(value: string): string | null {
  if (value === 'never') return null;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidArgumentError('use an ISO 8601 date-time such as 2027-01-31T12:00:00Z, or never');
  return new Date(time).toISOString();
}
