/** The users aggregate of the storage port: accounts and their permissions. */
import type { RowLock } from './index.js';

/** How an account came to exist. */
export type UserSource = 'setup' | 'local' | 'migrated' | 'oidc';

/** A stored account. Permissions are plain strings; services narrow them. */
export interface UserRecord {
  id: string;
  username: string;
  passwordHash: string;
  source: UserSource;
  enabled: boolean;
  mustChangePassword: boolean;
  tokenVersion: number;
  permissions: readonly string[];
  /** The user's usage limits as stored JSON (the contract's `UsageLimits`, issue 17), or null for none. */
  limitsJson: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What {@link UserStore.create} stores. */
export interface NewUser {
  id: string;
  username: string;
  passwordHash: string;
  source: UserSource;
  permissions: readonly string[];
  mustChangePassword: boolean;
  now: number;
}

/** Accounts. Usernames are unique ignoring case. */
export interface UserStore {
  /** Whether any account exists (first-run setup). */
  exists(): Promise<boolean>;
  /** Enabled accounts holding `permission` (the last-admin rule). */
  countEnabledHolding(permission: string): Promise<number>;
  findById(id: string, options?: RowLock): Promise<UserRecord | null>;
  /** Case-insensitive. */
  findByUsername(username: string): Promise<UserRecord | null>;
  list(): Promise<UserRecord[]>;
  /** Never throws for a taken name: answers `'username_taken'`. */
  create(user: NewUser): Promise<'created' | 'username_taken'>;
  setPermissions(id: string, permissions: readonly string[], now: number): Promise<void>;
  /** Replaces the user's usage limits (JSON; null for none). */
  setLimits(id: string, limitsJson: string | null, now: number): Promise<void>;
  /** Disabling also bumps the token version. */
  setEnabled(id: string, enabled: boolean, now: number): Promise<void>;
  /** Also bumps the token version. */
  setPassword(id: string, passwordHash: string, mustChangePassword: boolean, now: number): Promise<void>;
  delete(id: string): Promise<boolean>;
}

/** The `users.source` column's value: `oidc` comes from the account's link (`oidc_identities`), so it is stored as `local`. */
export function storedSource(source: UserSource): Exclude<UserSource, 'oidc'> {
  return source === 'oidc' ? 'local' : source;
}
