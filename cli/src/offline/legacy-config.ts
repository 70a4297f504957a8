/**
 * The removed JSON configuration of releases before 3.0 (`--auth-config`), and its validation. Every
 * problem is reported with the JSON path where it is, e.g. `$.user_config[1].api_keys[0]`.
 *
 * ```json
 * { "auth_config": { "algorithm": "HS256", "secret_key": "<hex>", "token_expire_in_minutes": 30 },
 *   "user_config": [ { "username": "alice", "password": "…", "permissions": ["models:list"],
 *                      "api_keys": ["sk-abcdefghijklm"] } ] }
 * ```
 */
import { allPermissions, legacyPermissionMap, PASSWORD_MAX_LENGTH, type PermissionInput } from '@svc/server/internals';

/** One user of a valid legacy file. */
export interface LegacyUser {
  username: string;
  password: string;
  permissions: PermissionInput[];
  apiKeys: string[];
  /** Where the user is in the file, e.g. `$.user_config[0]`. */
  path: string;
}

/** A problem of the file, at a JSON path. */
export interface Problem {
  path: string;
  message: string;
}

/** The outcome of validation: the users when the file is valid, the problems otherwise. */
export type Validation = { ok: true; users: LegacyUser[] } | { ok: false; problems: Problem[] };

/** The algorithms of the HS series the legacy server accepted. */
const ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const LEGACY_KEY = /^sk-[0-9A-Za-z]{13}$/;
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]*$/;
const KNOWN_PERMISSIONS = new Set<string>([...allPermissions, ...Object.keys(legacyPermissionMap)]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`);
/** What a secret field holds, by kind only: a secret's value is never printed (issue 14, H11). */
const describeSecret = (value: unknown) => (typeof value === 'string' ? `a string of ${[...value].length} characters that is not hex` : describe(value));

/** Validates a parsed legacy file, collecting every problem. */
export function validateLegacyConfig(document: unknown): Validation {
  const problems: Problem[] = [];
  const problem = (path: string, message: string): void => {
    problems.push({ path, message });
  };
  if (!isObject(document)) return { ok: false, problems: [{ path: '$', message: `must be an object with auth_config and user_config, not ${describe(document)}` }] };

  const auth = document['auth_config'];
  if (auth === undefined) problem('$.auth_config', 'is missing');
  else if (!isObject(auth)) problem('$.auth_config', `must be an object, not ${describe(auth)}`);
  else {
    const algorithm = auth['algorithm'];
    if (algorithm === undefined) problem('$.auth_config.algorithm', 'is missing');
    else if (typeof algorithm !== 'string' || !ALGORITHMS.includes(algorithm)) {
      problem('$.auth_config.algorithm', `must be one of ${ALGORITHMS.join(', ')}, not ${describe(algorithm)}`);
    }
    const secret = auth['secret_key'];
    if (secret === undefined) problem('$.auth_config.secret_key', 'is missing');
    else if (typeof secret !== 'string' || !/^[0-9a-fA-F]+$/.test(secret)) problem('$.auth_config.secret_key', `must be a hex string, not ${describeSecret(secret)}`);
    // token_expire_in_minutes was reserved and never checked by the legacy server: it is ignored.
  }

  const userConfig = document['user_config'];
  const users: LegacyUser[] = [];
  if (userConfig === undefined) problem('$.user_config', 'is missing');
  else if (!Array.isArray(userConfig)) problem('$.user_config', `must be an array of users, not ${describe(userConfig)}`);
  else {
    const usernames = new Map<string, string>();
    const keys = new Map<string, string>();
    userConfig.forEach((entry: unknown, index) => {
      const path = `$.user_config[${index}]`;
      if (!isObject(entry)) {
        problem(path, `must be an object, not ${describe(entry)}`);
        return;
      }
      const before = problems.length;
      const username = entry['username'];
      if (username === undefined) problem(`${path}.username`, 'is missing');
      else if (typeof username !== 'string') problem(`${path}.username`, `must be a string, not ${describe(username)}`);
      else if (username.length > 64 || !USERNAME.test(username)) {
        problem(`${path}.username`, `${JSON.stringify(username)} is not a valid username: 1–64 letters, digits and . _ @ + -, starting with a letter or digit`);
      } else {
        const first = usernames.get(username.toLowerCase());
        if (first !== undefined) problem(`${path}.username`, `duplicate username ${JSON.stringify(username)} (also at ${first}; usernames ignore case)`);
        else usernames.set(username.toLowerCase(), `${path}.username`);
      }
      const password = entry['password'];
      if (password === undefined) problem(`${path}.password`, 'is missing');
      else if (typeof password !== 'string') problem(`${path}.password`, `must be a string, not ${describe(password)}`);
      else if (password === '') problem(`${path}.password`, 'is empty');
      else if ([...password].length > PASSWORD_MAX_LENGTH) problem(`${path}.password`, `is longer than ${PASSWORD_MAX_LENGTH} characters`);
      const permissions = entry['permissions'];
      if (permissions === undefined) problem(`${path}.permissions`, 'is missing');
      else if (!Array.isArray(permissions)) problem(`${path}.permissions`, `must be an array of strings, not ${describe(permissions)}`);
      else {
        permissions.forEach((permission: unknown, at) => {
          if (typeof permission !== 'string' || !KNOWN_PERMISSIONS.has(permission)) {
            problem(`${path}.permissions[${at}]`, `${describe(permission)} is not a permission`);
          }
        });
      }
      const apiKeys = entry['api_keys'];
      if (apiKeys === undefined) problem(`${path}.api_keys`, 'is missing');
      else if (!Array.isArray(apiKeys)) problem(`${path}.api_keys`, `must be an array of strings, not ${describe(apiKeys)}`);
      else {
        apiKeys.forEach((key: unknown, at) => {
          const keyPath = `${path}.api_keys[${at}]`;
          if (typeof key !== 'string') return problem(keyPath, `must be a string, not ${describe(key)}`);
          // The key itself is never echoed: it is a secret.
          if (!LEGACY_KEY.test(key)) return problem(keyPath, 'is not a legacy API key: sk- followed by 13 letters or digits');
          const first = keys.get(key);
          if (first !== undefined) return problem(keyPath, `duplicate API key (also at ${first})`);
          keys.set(key, keyPath);
        });
      }
      if (problems.length === before) {
        users.push({ username: username as string, password: password as string, permissions: permissions as PermissionInput[], apiKeys: apiKeys as string[], path });
      }
    });
  }
  return problems.length === 0 ? { ok: true, users } : { ok: false, problems };
}
