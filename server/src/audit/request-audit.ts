/**
 * What one API call contributes to the audit trail. Handlers and hooks fill a request-scoped
 * {@link AuditContext} (`request.audit`); when the response is sent, {@link requestEntry} turns the
 * request, its principal and that context into a record.
 *
 * @example
 * // In any handler, e.g. a model route:
 * request.audit.model = { id: 'qwen-chat', name: 'qwen2.5-instruct', type: 'LLM' };
 * request.audit.target = modelUid;
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors.js';
import { cleanText, type AuditEntry } from './audit-entry.js';

/** The model a request concerned. */
export interface AuditModel {
  id?: string | null;
  name?: string | null;
  type?: string | null;
}

/** Facts about a request that only its handler or hooks know. */
export interface AuditContext {
  /** The client IP (set by the server before authentication). */
  clientIp: string;
  /** The contract operation the request reached (unset when no route matched). */
  operation?: { operationId: string; path: string };
  /** The object acted on (a user id, a key id, an IP…); path parameters are used when unset. */
  target?: string | null;
  /** Why it failed, beyond the error code (e.g. `unknown_user` for a failed login). */
  reason?: string | null;
  /** The error code the response carried (set by the error handler). */
  errorCode?: ErrorCode;
  /** The account a public route acted for (login: the username tried, and the user id when it exists). */
  userId?: string | null;
  username?: string | null;
  /** How the caller tried to authenticate when authentication failed. */
  attemptedAuthType?: 'jwt' | 'api_key';
  /** The model the request concerned (filled by model routes). */
  model?: AuditModel;
  /** Set to false to leave this request out of the trail (never used for API calls today). */
  record?: boolean;
}

/** The audit status of an error code, in the reference's vocabulary where it has a word. */
const statusOfCode: Partial<Record<ErrorCode, string>> = {
  invalid_credentials: 'login_failed',
  ip_banned: 'ip_banned',
  key_banned: 'key_banned',
  login_throttled: 'login_throttled',
  password_change_required: 'denied',
  api_key_expired: 'key_expired',
  api_key_disabled: 'key_disabled',
  invalid_api_key: 'invalid_key',
  invalid_token: 'invalid_token',
  token_expired: 'invalid_token',
  malformed_authorization_header: 'invalid_token',
  permission_denied: 'denied',
  cannot_grant_unheld_permissions: 'denied',
  target_holds_unheld_permissions: 'denied',
  cannot_modify_self: 'denied',
  account_disabled: 'user_disabled',
  missing_credentials: 'no_credentials',
};

/** The category of a route: auth, admin, system or (everything else: the model routes) inference. */
export function categoryOf(route: string): string {
  if (route.startsWith('/v1/auth/') || route === '/token' || route.startsWith('/v1/admin/setup')) return 'auth';
  if (route.startsWith('/v1/admin/') || route.startsWith('/v1/audit/')) return 'admin';
  if (route === '/status' || route.startsWith('/v1/cluster/auth')) return 'system';
  return 'inference';
}

function auditStatus(httpStatus: number, code: ErrorCode | undefined): string {
  if (httpStatus < 400) return 'success';
  return (code !== undefined ? statusOfCode[code] : undefined) ?? 'error';
}

/** The path parameters' values joined by `/` (null without any): the object a call acted on when its handler named none. */
function defaultTarget(params: unknown): string | null {
  if (params === null || typeof params !== 'object') return null;
  let target: string | null = null;
  // A loop, not Object.values().filter().join(): most calls have no path parameter, and this runs for every one.
  for (const name in params) {
    const value = (params as Record<string, unknown>)[name];
    if (typeof value === 'string') target = target === null ? value : `${target}/${value}`;
  }
  return target;
}

/** The record of one API call. */
export function requestEntry(request: FastifyRequest, reply: FastifyReply, now: number): AuditEntry {
  const context = request.audit;
  const principal = request.principal ?? null;
  const route = context.operation?.path ?? null;
  const action = context.operation?.operationId ?? 'unknown_route';
  const questionMark = request.url.indexOf('?');
  const user = principal?.user ?? null;
  const key = principal?.apiKey ?? null;
  const authType = principal !== null && principal.authType !== 'none' ? principal.authType : (context.attemptedAuthType ?? 'none');
  return {
    timestamp: now,
    event_type: 'api_call',
    category: categoryOf(route ?? request.url),
    auth_type: authType,
    user_id: user?.id ?? cleanText(context.userId),
    username: cleanText(user?.username ?? context.username),
    api_key_id: key?.id ?? null,
    api_key_name: cleanText(key?.name),
    api_key_prefix: key?.keyPrefix ?? null,
    model_id: cleanText(context.model?.id),
    model_name: cleanText(context.model?.name),
    model_type: cleanText(context.model?.type),
    method: request.method,
    route,
    endpoint: cleanText(questionMark === -1 ? request.url : request.url.slice(0, questionMark)),
    action,
    target: cleanText(context.target ?? defaultTarget(request.params)),
    status: auditStatus(reply.statusCode, context.errorCode),
    http_status: reply.statusCode,
    reason: cleanText(context.reason ?? context.errorCode ?? null),
    request_id: request.id,
    latency_ms: Math.round(reply.elapsedTime * 1000) / 1000,
    client_ip: context.clientIp,
    details: null,
  };
}
