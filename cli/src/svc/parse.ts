/**
 * Parsers of option values shared by the `svc` commands. A malformed value is refused with
 * commander's `InvalidArgumentError` (exit code 1, with the option named); an unknown name with a
 * {@link CliError} in words (`unknown permission "modles:list" (did you mean models:list?); known: …`),
 * before anything is sent.
 */
import type { ModelPermission, ModelType, PermissionInput } from '@svc/sdk';
import { InvalidArgumentError } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { closestName, knownModelTypes, knownPermissions, legacyPermissions } from './known-names.js';

/** A list option's entries: separated by commas or spaces, empty ones dropped. */
function entries(value: string): string[] {
  return value.split(/[\s,]+/).filter((entry) => entry !== '');
}

/** The error for a name that is not in `known`, naming the closest one when it looks like a typo. */
function unknownName(kind: string, value: string, known: readonly string[]): CliError {
  const suggestion = closestName(value, known);
  return new CliError(ExitCode.usage, `unknown ${kind} ${JSON.stringify(value)}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}; known: ${known.join(', ')}`);
}

/**
 * A permission list: names separated by commas (or spaces); `none` (or an empty value) is the empty
 * list. Legacy names (`models:start`, …) are accepted; the server maps them.
 */
export function parsePermissionList(value: string): PermissionInput[] {
  const names = entries(value);
  if (names.length === 0 || (names.length === 1 && names[0] === 'none')) return [];
  const accepted: readonly string[] = [...knownPermissions, ...legacyPermissions];
  for (const name of names) if (!accepted.includes(name)) throw unknownName('permission', name, knownPermissions);
  return names as PermissionInput[];
}

const MODEL_UID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Model restrictions (`--models`): `all` (every model), `none` (no model), or entries separated by
 * commas: `type:<model type>` (every model of that type, e.g. `type:embedding`), `model:<uid>` or a
 * bare `<uid>` (one model).
 */
export function parseModelRestrictions(value: string): ModelPermission[] {
  const items = entries(value);
  if (items.length === 0) throw new InvalidArgumentError('give all, none, or model uids and type:<type> entries, comma-separated');
  if (items.length === 1 && items[0] === 'none') return [];
  return items.map((item): ModelPermission => {
    if (item === 'all') return { permission_type: 'all', permission_value: null };
    if (item.startsWith('type:')) {
      const name = item.slice('type:'.length);
      const type = knownModelTypes.find((known) => known.toLowerCase() === name.toLowerCase());
      if (type === undefined) throw unknownName('model type', name, knownModelTypes);
      return { permission_type: 'model_type', permission_value: type as ModelType };
    }
    const uid = item.startsWith('model:') ? item.slice('model:'.length) : item;
    if (!MODEL_UID.test(uid)) throw new CliError(ExitCode.usage, `${JSON.stringify(uid)} is not a model uid (letters, digits, ".", "_", ":", "-", at most 128)`);
    return { permission_type: 'model_id', permission_value: uid };
  });
}

/** Model restrictions for a table: `all`, `(none)`, or the entries (`echo, type:embedding`). */
export function showModelRestrictions(restrictions: readonly ModelPermission[]): string {
  if (restrictions.length === 0) return '(none)';
  return restrictions
    .map((entry) => (entry.permission_type === 'all' ? 'all' : entry.permission_type === 'model_type' ? `type:${entry.permission_value}` : entry.permission_value))
    .join(', ');
}

/** An ISO 8601 date-time (or a date) in the future-or-past; `never` is null. */
export function parseExpiry(value: string): string | null {
  if (value === 'never') return null;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidArgumentError('use an ISO 8601 date-time such as 2027-01-31T12:00:00Z, or never');
  return new Date(time).toISOString();
}
