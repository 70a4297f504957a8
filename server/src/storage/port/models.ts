/** The models aggregate of the storage port: launched models and registered families. */
import type { RowLock } from './index.js';

/** A launched model. */
export interface ModelRecord {
  uid: string;
  modelName: string;
  modelType: string;
  engine: 'builtin' | 'upstream';
  abilities: readonly string[];
  requiresSystemMessageFirst: boolean;
  dimensions: number | null;
  upstream: { baseUrl: string; model: string; keyCiphertext: Buffer | null; keyEncryptionId: string | null } | null;
  launchedBy: string | null;
  createdAt: number;
}

/** A registered (custom) model family. `definition` is kept byte for byte as registered. */
export interface ModelFamilyRecord {
  modelName: string;
  modelType: string;
  abilities: readonly string[];
  requiresSystemMessageFirst: boolean;
  dimensions: number | null;
  description: string | null;
  definition: string;
  createdBy: string | null;
  createdAt: number;
}

/** Launched models. */
export interface ModelStore {
  findByUid(uid: string): Promise<ModelRecord | null>;
  list(): Promise<ModelRecord[]>;
  countByFamily(modelType: string, modelName: string): Promise<number>;
  insert(model: ModelRecord): Promise<'created' | 'uid_taken'>;
  delete(uid: string): Promise<boolean>;
}

/** Registered model families. */
export interface ModelFamilyStore {
  find(modelType: string, modelName: string, options?: RowLock): Promise<ModelFamilyRecord | null>;
  listByType(modelType: string): Promise<ModelFamilyRecord[]>;
  insert(family: ModelFamilyRecord): Promise<'created' | 'name_taken'>;
  delete(modelType: string, modelName: string): Promise<boolean>;
}
