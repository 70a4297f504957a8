/**
 * Per-key model restrictions (`model_permissions`): which models a caller may use. A JWT (or a
 * server with authentication off) carries no restrictions; a key's entries are OR-ed: `all`, a
 * `model_id` (the model uid) or a `model_type`. An empty list allows nothing.
 */
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import type { ModelRecord, ModelType } from './model-records.js';

/** A model as the audit trail and access checks name it. */
export interface ModelDescription {
  /** The model uid (for a family: its name). */
  id: string;
  /** The family name. */
  name: string;
  type: ModelType;
}

/** `{id, name, type}` of a launched model, e.g. for audit records. */
export function describeModel(model: Pick<ModelRecord, 'uid' | 'modelName' | 'modelType'>): ModelDescription {
  return { id: model.uid, name: model.modelName, type: model.modelType };
}

/** True when the caller's key (if any) allows the model `{id, type}`. */
export function mayUseModel(principal: Principal, model: { id: string; type: ModelType }): boolean {
  const restrictions = principal.apiKey?.modelPermissions;
  if (restrictions === undefined) return true;
  return restrictions.some(
    (entry) =>
      entry.permission_type === 'all' ||
      (entry.permission_type === 'model_id' && entry.permission_value === model.id) ||
      (entry.permission_type === 'model_type' && entry.permission_value === model.type),
  );
}

/**
 * True when the caller's key may possibly use a model with this uid whatever its type: used before
 * a lookup, so a restricted key cannot learn which uids exist.
 */
export function mayUseUidOfAnyType(principal: Principal, uid: string): boolean {
  const restrictions = principal.apiKey?.modelPermissions;
  if (restrictions === undefined) return true;
  return restrictions.some((entry) => entry.permission_type !== 'model_id' || entry.permission_value === uid);
}

/** The error a denied model answers (the reference's wording). */
export function modelAccessDenied(uid: string): ApiError {
  return new ApiError('model_access_denied', `API key does not have access to model: ${uid}`);
}

/** Throws 403 unless the caller may use the model. */
export function assertMayUseModel(principal: Principal, model: { id: string; type: ModelType }): void {
  if (!mayUseModel(principal, model)) throw modelAccessDenied(model.id);
}
