/**
 * Names the model a request concerns in its audit record (`model_id`, `model_name`, `model_type`),
 * before the handler runs, so a refused or failed call is filed under its model too.
 */
import type { FastifyRequest } from 'fastify';
import type { ModelService } from '../models/model-service.js';

/**
 * Files `request` under the launched model `uid` (name and type when it is running), looked up with
 * the epochs the guard read for the request (no read of its own).
 */
export async function noteModel(request: FastifyRequest, models: ModelService, uid: string): Promise<void> {
  request.audit.model = await models.describeForAudit(uid, request.epochs ?? undefined);
}

/** Files `request` under a model family (registrations, launches). */
export function noteFamily(request: FastifyRequest, family: { name: string; type: string; id?: string }): void {
  request.audit.model = { id: family.id ?? null, name: family.name, type: family.type };
}
