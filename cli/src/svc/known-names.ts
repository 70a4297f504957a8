/**
 * The names `svc` checks before sending anything: permissions and model types, as the contract
 * enumerates them (`Permission`, `PermissionInput`, `ModelType`). The type checks below fail the
 * build when the contract gains or loses a name these lists do not follow.
 */
import type { ModelType, Permission, PermissionInput } from '@svc/sdk';

/** Every permission, in the order of the spec's table. */
export const knownPermissions = [
  'models:list',
  'models:read',
  'models:write',
  'models:register',
  'keys:create',
  'keys:manage',
  'users:manage',
  'cache:list',
  'cache:delete',
  'virtualenv:list',
  'virtualenv:delete',
  'logs:list',
  'monitor:view',
  'usage:read_all',
  'admin',
] as const satisfies readonly Permission[];

/** The deprecated names the server still accepts and maps (`models:start` → `models:write`, …). */
export const legacyPermissions = ['models:start', 'models:stop', 'models:add', 'models:unregister'] as const satisfies readonly PermissionInput[];

/** The model types of the contract. */
export const knownModelTypes = ['LLM', 'embedding', 'rerank', 'image', 'video', 'audio'] as const satisfies readonly ModelType[];

type Exhaustive<Listed, All> = [Exclude<All, Listed>] extends [never] ? true : { missing: Exclude<All, Listed> };
const everyPermissionListed: Exhaustive<(typeof knownPermissions)[number] | (typeof legacyPermissions)[number], PermissionInput> = true;
const everyModelTypeListed: Exhaustive<(typeof knownModelTypes)[number], ModelType> = true;
void everyPermissionListed;
void everyModelTypeListed;

/** The known name closest to `value` when it is a likely typo (at most two edits away), else undefined. */
export function closestName(value: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(value.toLowerCase(), name.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}
