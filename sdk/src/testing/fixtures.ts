/**
 * Fixtures shared by the SDK's own tests (not part of the package: `dist/testing/` is not published).
 */
import type { ErrorBody, ErrorCode, Me, User } from '../index.js';

/** The base URL msw intercepts in the unit tests. */
export const BASE_URL = 'http://svc.test';

/** An error body in the contract's shape. */
export function errorBody(code: ErrorCode, message: string, type: ErrorBody['error']['type'], param?: string): ErrorBody {
  return { detail: message, error: { message, type, code, ...(param === undefined ? {} : { param }) } };
}

/** A user as the server lists one. */
export const alice: User = {
  id: 'user-2',
  username: 'alice',
  source: 'local',
  enabled: true,
  must_change_password: false,
  permissions: ['models:list'],
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};

/** The admin as `GET /v1/auth/me` describes them when calling with an access token. */
export const adminMe: Me = {
  id: 'user-1',
  username: 'admin',
  enabled: true,
  must_change_password: false,
  permissions: ['admin'],
  auth_type: 'jwt',
  api_key: null,
  created_at: '2025-01-01T00:00:00.000Z',
};
