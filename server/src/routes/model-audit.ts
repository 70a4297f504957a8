/**
 * Names the model a request concerns in its audit record (`model_id`, `model_name`, `model_type`),
 * before the handler runs, so a refused or failed call is filed under its model too.
 */
import type { FastifyRequest } from 'fastify';
import { describeModel } from '../models/model-access.js';
import type { ModelsRepository } from '../storage/models-repository.js';

/** Files `request` under the launched model `uid` (name and type when it is running). */
export function noteModel(request: FastifyRequest, models: ModelsRepository, uid: string): void {
  const model = models.findByUid(uid);
  request.audit.model = model === null ? { id: uid } : describeModel(model);
}

/** Files `request` under a model family (registrations, launches). */
export function noteFamily(request: FastifyRequest, family: { name: string; type: string; id?: string }): void {
  request.audit.model = { id: family.id ?? null, name: family.name, type: family.type };
}
