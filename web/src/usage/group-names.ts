/**
 * Names for the groups of a usage report, which carries ids: key names from the key list (one's own
 * keys with `keys:create`, everyone's with `keys:manage`), usernames from the user list
 * (`users:manage`; one's own name always). An id the caller cannot list (a deleted key, another
 * user's without the permission to list them) stays an id, shortened and said to be unknown.
 */
import type { ApiKey, Me, User, UsageQuery } from '@svc/sdk';
import { client } from '../api/client.js';
import { useLoader } from '../api/use-loader.js';
import { holds } from '../auth/permissions.js';

export type UsageGroupBy = NonNullable<UsageQuery['group_by']>;

/** The names the caller may list. */
export interface GroupNames {
  keys: ReadonlyMap<string, ApiKey>;
  users: ReadonlyMap<string, string>;
}

/** Loads the key and user lists the caller may read (nothing it may not: no refused call). */
export function useGroupNames(me: Me): GroupNames {
  const mayListKeys = holds(me.permissions, 'keys:create') || holds(me.permissions, 'keys:manage');
  const mayListUsers = holds(me.permissions, 'users:manage');
  const keys = useLoader(() => (mayListKeys ? client.keys.list() : Promise.resolve<ApiKey[]>([])));
  const users = useLoader(() => (mayListUsers ? client.users.list() : Promise.resolve<User[]>([])));
  const userNames = new Map((users.data ?? []).map((user) => [user.id, user.username]));
  userNames.set(me.id, me.username);
  return { keys: new Map((keys.data ?? []).map((key) => [key.id, key])), users: userNames };
}

const shortId = (id: string) => (id.length > 10 ? `${id.slice(0, 8)}…` : id);

/** A group of a report in words. */
export function groupLabel(group: string | null, groupBy: UsageGroupBy, names: GroupNames, me: Me): string {
  switch (groupBy) {
    case 'model':
      return group ?? '—';
    case 'key': {
      if (group === null) return 'No key (signed-in sessions)';
      const key = names.keys.get(group);
      if (key === undefined) return `Key ${shortId(group)} (deleted or not listed)`;
      return key.user_id === me.id ? key.name : `${key.name} (${key.owner_username})`;
    }
    case 'user':
      if (group === null) return 'No user (authentication off)';
      return names.users.get(group) ?? `User ${shortId(group)}`;
  }
}

/** The column header naming a report's groups. */
export function groupHeader(groupBy: UsageGroupBy): string {
  return { model: 'Model', key: 'API key', user: 'User' }[groupBy];
}

/** A report's groups in a sentence: "by model", "by API key", "by user". */
export function groupNoun(groupBy: UsageGroupBy): string {
  return { model: 'model', key: 'API key', user: 'user' }[groupBy];
}
